/*
 * host-id.c - the boot id of the host under the sysroot, one of the three
 * names (machine id, hostname, boot id) every JSON document carries.
 */
#include <stdio.h>

#include "swaptune/host.h"

int host_read_boot_id(const struct host *h, char *buf, size_t len)
{
	if (host_read_line(h, HOST_BOOT_ID, buf, len, NULL) < 0 || !buf[0])
		snprintf(buf, len, "unknown");
	return 0;
}
