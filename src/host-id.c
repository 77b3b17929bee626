/*
 * host-id.c - which boot of which machine this is (host.h): the boot id
 * that tells live state of this boot from state a reboot already undid.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "swaptune/host.h"

int host_read_boot_id(const struct host *h, char *buf, size_t len)
{
	int r = host_read_line(h, HOST_BOOT_ID, buf, len, NULL);

	if (r < 0 || !buf[0]) {
		if (len)
			buf[0] = '\0';
		return r < 0 ? r : -ENOENT;
	}
	return 0;
}
