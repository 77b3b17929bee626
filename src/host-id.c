/*
 * host-id.c - which boot of which machine this is (host.h): the boot id
 * that tells live state of this boot from state a reboot already undid, and
 * the CPU model a report or an export names the machine by.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

int host_read_cpu_model(const struct host *h, char *out, size_t len)
{
	size_t cap = 1 << 20;
	char *buf = malloc(cap), *p, *nl;

	if (len)
		out[0] = '\0';
	if (!buf)
		return -ENOMEM;
	if (host_read(h, HOST_CPUINFO, buf, cap, NULL) >= 0) {
		for (p = buf; *p; p = nl + 1) {
			char *colon;

			nl = strchr(p, '\n');
			colon = strchr(p, ':');
			if (!strncmp(p, "model name", 10) && colon && (!nl || colon < nl)) {
				char *v = colon + 1;

				while (*v == ' ' || *v == '\t')
					v++;
				snprintf(out, len, "%.*s", nl ? (int)(nl - v) : (int)strlen(v), v);
				break;
			}
			if (!nl)
				break;
		}
	}
	free(buf);
	return len && out[0] ? 0 : -ENOENT;
}
