/*
 * init.c - /init of check-kernels' initramfs: load the modules listed in
 * /modules.list (one path a line, in order), mount the host's root read-only
 * over virtio-9p (tag "hostroot") under a tmpfs overlay, switch to it and run
 * the guest script named by swaptune_guest= on the kernel command line.
 * Static, no libraries: the initramfs holds only this and the modules.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	_exit(1);
}

int main(void)
{
	static char list[8192];
	const char *script = getenv("swaptune_guest");
	char *p, *nl;
	int fd;
	ssize_t n;

	if ((fd = open("/modules.list", O_RDONLY)) < 0 || (n = read(fd, list, sizeof(list) - 1)) < 0)
		die("modules.list");
	close(fd);
	for (p = list; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (!*p)
			continue;
		if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0 || syscall(SYS_finit_module, fd, "", 0) < 0) {
			fprintf(stderr, "init: %s: ", p);
			die("finit_module");
		}
		close(fd);
	}
	mkdir("/lower", 0755);
	mkdir("/ovl", 0755);
	mkdir("/newroot", 0755);
	if (mount("hostroot", "/lower", "9p", MS_RDONLY,
		  "trans=virtio,version=9p2000.L,msize=262144,cache=loose") < 0)
		die("mount 9p");
	if (mount("ovl", "/ovl", "tmpfs", 0, "mode=0755") < 0)
		die("mount tmpfs");
	mkdir("/ovl/upper", 0755);
	mkdir("/ovl/work", 0755);
	if (mount("overlay", "/newroot", "overlay", 0,
		  "lowerdir=/lower,upperdir=/ovl/upper,workdir=/ovl/work") < 0)
		die("mount overlay");
	if (chdir("/newroot") < 0 || mount(".", "/", NULL, MS_MOVE, NULL) < 0 || chroot(".") < 0 ||
	    chdir("/") < 0)
		die("switch root");
	if (!script)
		die("no swaptune_guest= on the command line");
	execl("/bin/sh", "sh", script, (char *)NULL);
	die("exec /bin/sh");
	return 1;
}
