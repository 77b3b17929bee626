/*
 * probe-file-anon.c - an anon working set plus a page-cache file, read
 * interleaved (every 4th access a 4 KiB pread of a random file page). Swap
 * readahead inflates anon residency in the memcg, which evicts the file's
 * cache, so file reads turn into disk reads (seeds/000).
 *
 * The file is made in scratch_dir during setup and unlinked at once, so
 * nothing is left behind even if the memcg OOM-kills us (its page cache is
 * freed with the last close, and dropped with POSIX_FADV_DONTNEED first). The anon set is
 * written first and the file last (fsync'd), so the measured phase starts
 * with anon mostly in swap and the file hot in the page cache. File
 * readahead is turned off (POSIX_FADV_RANDOM): only swap readahead should
 * differ between arms.
 */
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "swaptune/workload.h"

#define FILE_ANON_CHUNK_PAGES 256

struct file_anon {
	const struct workload_mem *m;
	int fd;
	char *buf;	/* one page */
};

static uint64_t file_anon_bytes(const struct workload_params *p)
{
	return p->file_bytes ? p->file_bytes : p->working_set_bytes / 2;
}

/* The default file, half the working set, as the recipe records it. */
static double file_anon_default(const struct workload_params *p)
{
	return (double)file_anon_bytes(p);
}

static const struct workload_param file_anon_params[] = {
	{ "file_bytes", OPT_SIZE("file-size", "file-anon page-cache file (default half the working set)",
				 struct workload_params, file_bytes, 1, 0),
	  0, file_anon_default, "a size from 1 byte to 1 EiB" },
	{ NULL },
};

static bool file_anon_supported(const struct workload_params *p, char *reason, size_t len)
{
	struct statfs sfs;
	struct stat st;

	if (!workload_check_anon(p, reason, len))
		return false;
	if (file_anon_bytes(p) < workload_page_size()) {
		snprintf(reason, len, "file of %llu bytes is smaller than a page",
			 (unsigned long long)file_anon_bytes(p));
		return false;
	}
	if (!p->scratch_dir[0]) {
		snprintf(reason, len, "needs a scratch directory for its page-cache file");
		return false;
	}
	if (stat(p->scratch_dir, &st) < 0) {
		snprintf(reason, len, "scratch directory %s: %s", p->scratch_dir, strerror(errno));
		return false;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(reason, len, "scratch directory %s is not a directory", p->scratch_dir);
		return false;
	}
	if (access(p->scratch_dir, W_OK | X_OK) < 0) {
		snprintf(reason, len, "scratch directory %s is not writable: %s",
			 p->scratch_dir, strerror(errno));
		return false;
	}
	if (statfs(p->scratch_dir, &sfs) < 0) {
		snprintf(reason, len, "cannot statfs scratch directory %s: %s", p->scratch_dir,
			 strerror(errno));
		return false;
	}
	if (sfs.f_type == TMPFS_MAGIC || sfs.f_type == RAMFS_MAGIC) {
		snprintf(reason, len, "scratch directory %s is on tmpfs or ramfs, whose pages "
			 "are swapped or pinned rather than evicted and re-read", p->scratch_dir);
		return false;
	}
	if ((uint64_t)sfs.f_bavail * (uint64_t)sfs.f_bsize < file_anon_bytes(p)) {
		snprintf(reason, len, "scratch directory %s has %llu MiB free, the file needs %llu MiB",
			 p->scratch_dir, (unsigned long long)sfs.f_bavail * sfs.f_bsize >> 20,
			 (unsigned long long)(file_anon_bytes(p) + (1 << 20) - 1) >> 20);
		return false;
	}
	return true;
}

static int file_anon_access(void *ctx, uint64_t page, uint64_t *sum, uint64_t *bytes,
			    struct st_err *e)
{
	struct file_anon *f = ctx;
	const struct workload_mem *m = f->m;
	ssize_t n;

	if (page < m->npages) {
		*sum += workload_touch(m->base, page, m->page_shift);
		*bytes += sizeof(uint64_t);
		return 0;
	}
	page -= m->npages;
	do
		n = pread(f->fd, f->buf, m->page_size, (off_t)(page << m->page_shift));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)m->page_size)
		return err_set(e, n < 0 ? -errno : -EIO, "cannot read page %llu of the scratch file: %s",
			       (unsigned long long)page, n < 0 ? strerror(errno) : "short read");
	*sum += *(const uint64_t *)(f->buf + workload_word_offset(page, m->page_shift));
	*bytes += m->page_size;
	return 0;
}

/* Make the unlinked scratch file of file_pages pages, written and fsync'd. */
static int file_anon_make(struct file_anon *f, const struct workload_params *p,
			  uint64_t file_pages, struct st_err *e)
{
	const struct workload_mem *m = f->m;
	char path[WORKLOAD_PATH_MAX + 32];
	size_t chunk = FILE_ANON_CHUNK_PAGES * m->page_size;
	char *buf;
	int rc = 0;

	if ((size_t)snprintf(path, sizeof(path), "%s/swaptune-file-anon.XXXXXX",
			     p->scratch_dir) >= sizeof(path))
		return err_set(e, -ENAMETOOLONG, "scratch directory path is too long");
	f->fd = mkostemp(path, O_CLOEXEC);
	if (f->fd < 0)
		return err_set(e, -errno, "cannot create a file in %s: %s", p->scratch_dir,
			       strerror(errno));
	unlink(path);
	buf = malloc(chunk);
	if (!buf)
		return err_set(e, -ENOMEM, "cannot allocate %zu bytes", chunk);
	for (uint64_t done = 0; done < file_pages && rc == 0;) {
		uint64_t n = file_pages - done < FILE_ANON_CHUNK_PAGES ?
			     file_pages - done : FILE_ANON_CHUNK_PAGES;
		size_t len = n * m->page_size, off = 0;

		/* page numbers continue after the anon ones: no page equals another */
		for (uint64_t i = 0; i < n; i++)
			workload_fill_page(buf + i * m->page_size, m->page_size,
					   m->npages + done + i, p->seed, WORKLOAD_FILL_COMPRESSIBLE);
		while (off < len) {
			ssize_t w = pwrite(f->fd, buf + off, len - off,
					   (off_t)((done << m->page_shift) + off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				rc = err_set(e, w < 0 ? -errno : -EIO, "cannot write the scratch file in %s: %s",
					     p->scratch_dir, w < 0 ? strerror(errno) : "no progress");
				break;
			}
			off += (size_t)w;
		}
		done += n;
	}
	free(buf);
	if (rc == 0 && fsync(f->fd) < 0)
		rc = err_set(e, -errno, "cannot fsync the scratch file in %s: %s",
			     p->scratch_dir, strerror(errno));
	if (rc == 0)
		posix_fadvise(f->fd, 0, 0, POSIX_FADV_RANDOM);
	return rc;
}

static int file_anon_run(const struct workload_params *p, struct workload_result *r,
			 struct st_err *e)
{
	const struct workload_info *w = &probe_file_anon_info;
	struct workload_mem m = { 0 };
	struct file_anon f = { .m = &m, .fd = -1 };
	struct workload_access acc = { .fn = file_anon_access, .ctx = &f };
	struct workload_gen g;
	uint64_t t0 = workload_now_ns();
	int rc;

	rc = workload_anon_setup(w, p, r, &g, &m, e);
	if (rc == 0) {
		f.buf = aligned_alloc(m.page_size, m.page_size);
		if (!f.buf)
			rc = err_set(e, -ENOMEM, "cannot allocate a page");
	}
	if (rc == 0)
		rc = file_anon_make(&f, p, g.file_pages, e);
	if (rc == 0) {
		r->file_bytes = g.file_pages * m.page_size;
		r->setup_ns = workload_now_ns() - t0;
		rc = workload_measure(p, &g, &m, &acc, r, e);
	}
	if (f.fd >= 0) {
		/*
		 * its page cache goes now, explicitly: the file is unlinked, so
		 * the last close frees it anyway, but the probe must never rely on
		 * a host-wide cache drop to clean up after its own files
		 */
		posix_fadvise(f.fd, 0, 0, POSIX_FADV_DONTNEED);
		close(f.fd);
	}
	free(f.buf);
	workload_mem_unmap(&m);
	return workload_result_fail(r, rc, e);
}

const struct workload_info probe_file_anon_info = {
	.name = "file-anon",
	.summary = "random anonymous pages interleaved with page-cache file reads",
	.pattern = WORKLOAD_PAT_FILE_MIX,
	.supported = file_anon_supported,
	.run = file_anon_run,
	.fill_anon = workload_fill_compressible,
	.params = file_anon_params,
};
