/*
 * probe-tmpfs-read.c - shared memory (a memfd: shmem, swappable, charged to
 * the memcg) written in setup and read back with pread of random pages in
 * the measured phase: the shmem swap-in path, which uses cluster readahead
 * (seeds/002).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "swaptune/workload.h"

struct tmpfs_read {
	int fd;
	size_t page_size;
	unsigned page_shift;
	char *buf;
};

static bool tmpfs_read_supported(const struct workload_params *p, char *reason, size_t len)
{
	int fd;

	if (!workload_check_anon(p, reason, len))
		return false;
	fd = memfd_create("swaptune-check", MFD_CLOEXEC);
	if (fd < 0) {
		snprintf(reason, len, "memfd_create is not available: %s", strerror(errno));
		return false;
	}
	close(fd);
	return true;
}

static int tmpfs_read_access(void *ctx, uint64_t page, uint64_t *sum, uint64_t *bytes,
			     struct st_err *e)
{
	struct tmpfs_read *t = ctx;
	ssize_t n;

	do
		n = pread(t->fd, t->buf, t->page_size, (off_t)(page << t->page_shift));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)t->page_size)
		return err_set(e, n < 0 ? -errno : -EIO, "cannot read page %llu of the memfd: %s",
			       (unsigned long long)page, n < 0 ? strerror(errno) : "short read");
	*sum += *(const uint64_t *)(t->buf + workload_word_offset(page, t->page_shift));
	*bytes += t->page_size;
	return 0;
}

static int tmpfs_read_setup(struct tmpfs_read *t, const struct workload_params *p,
			    uint64_t npages, struct st_err *e)
{
	size_t bytes = npages * t->page_size;
	char *map;

	t->fd = memfd_create("swaptune-tmpfs-read", MFD_CLOEXEC);
	if (t->fd < 0)
		return err_set(e, -errno, "cannot create a memfd: %s", strerror(errno));
	if (ftruncate(t->fd, (off_t)bytes) < 0)
		return err_set(e, -errno, "cannot size the memfd to %zu bytes: %s", bytes,
			       strerror(errno));
	map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
	if (map == MAP_FAILED)
		return err_set(e, -errno, "cannot map the memfd (%zu bytes): %s", bytes,
			       strerror(errno));
	workload_fill_pages(map, 0, npages, t->page_size, p->seed, WORKLOAD_FILL_COMPRESSIBLE);
	munmap(map, bytes);
	t->buf = aligned_alloc(t->page_size, t->page_size);
	if (!t->buf)
		return err_set(e, -ENOMEM, "cannot allocate a page");
	return 0;
}

static int tmpfs_read_run(const struct workload_params *p, struct workload_result *r,
			  struct st_err *e)
{
	const struct workload_info *w = &probe_tmpfs_read_info;
	struct tmpfs_read t = { .fd = -1, .page_size = workload_page_size() };
	struct workload_access acc = { .fn = tmpfs_read_access, .ctx = &t };
	struct workload_mem none = { 0 };
	struct workload_gen g;
	uint64_t t0 = workload_now_ns();
	int rc;

	t.page_shift = (unsigned)__builtin_ctzll(t.page_size);
	workload_result_begin(r, w, p);
	rc = workload_gen_init(&g, w, p, e);
	if (rc == 0)
		rc = tmpfs_read_setup(&t, p, g.npages, e);
	if (rc == 0) {
		r->working_set_bytes = g.npages * t.page_size;
		r->setup_ns = workload_now_ns() - t0;
		rc = workload_measure(p, &g, &none, &acc, r, e);
	}
	if (t.fd >= 0)
		close(t.fd);
	free(t.buf);
	return workload_result_fail(r, rc, e);
}

const struct workload_info probe_tmpfs_read_info = {
	.name = "tmpfs-read",
	.summary = "random page reads of shared memory (shmem swap-in)",
	.pattern = WORKLOAD_PAT_UNIFORM,
	.supported = tmpfs_read_supported,
	.run = tmpfs_read_run,
	.fill_anon = NULL,
};
