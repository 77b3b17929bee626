/*
 * verdict-mc.c - the Monte-Carlo side of the v3 verdict: the null
 * distribution of the serial-dependence-robust paired statistic
 * (stats_pooled_rho(), stats_robust_t()) simulated for the design at hand,
 * so that the bounds are exact for the statistic used rather than borrowed
 * from the normal or t distribution.
 *
 * Paths: n_arms arms x rounds of stationary AR(1) noise per arm, for rho 0,
 * 0.3 and 0.5 with common random numbers (the same innovations), no effect.
 * The statistic is scale-free and shocks common to all arms cancel in it,
 * so these three are the whole family the bounds are calibrated over; the
 * bound of each look is the largest of the three (least favourable).
 * Deterministic: xoshiro256** seeded from VERDICT2_MC_SEED, normals by
 * Doornik's ziggurat.
 *
 * Results are memoised per design key and per (arms, pairs) in a process
 * cache: a pure function of its arguments computed once, guarded by a
 * mutex (the TUI judges from more than one thread). It is the only state
 * in advisor/.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "swaptune/advisor.h"
#include "verdict-int.h"

static const double mc_rhos[] = { 0.0, 0.3, 0.5 };
#define N_RHO 3
#define CAND_MAX (VERDICT_ARMS_MAX - 1)
/* marginals: kept exactly above this quantile, every THIN-th value below */
#define TAIL_KEEP 0.05
#define THIN 40

/* ---- random numbers ------------------------------------------------- */

struct rng {
	uint64_t s[4];
};

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rng_seed(struct rng *g, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		g->s[i] = splitmix(&seed);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(struct rng *g)
{
	uint64_t *s = g->s, r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

static inline double rng_u01(struct rng *g)
{
	return ((double)(rng_next(g) >> 11) + 0.5) * 0x1p-53;
}

/* Doornik (2005), "An improved ziggurat method to generate normal random samples". */
#define ZIG_C 128
#define ZIG_R 3.442619855899
#define ZIG_V 9.91256303526217e-3

struct zig {
	double x[ZIG_C + 1], r[ZIG_C];
};

static void zig_init(struct zig *z)
{
	double f = exp(-0.5 * ZIG_R * ZIG_R);

	z->x[0] = ZIG_V / f;
	z->x[1] = ZIG_R;
	z->x[ZIG_C] = 0.0;
	for (int i = 2; i < ZIG_C; i++) {
		z->x[i] = sqrt(-2.0 * log(ZIG_V / z->x[i - 1] + f));
		f = exp(-0.5 * z->x[i] * z->x[i]);
	}
	for (int i = 0; i < ZIG_C; i++)
		z->r[i] = z->x[i + 1] / z->x[i];
}

static double zig_tail(struct rng *g, bool neg)
{
	double x, y;

	do {
		x = log(rng_u01(g)) / ZIG_R;
		y = log(rng_u01(g));
	} while (-2.0 * y < x * x);
	return neg ? x - ZIG_R : ZIG_R - x;
}

static inline double zig_normal(const struct zig *z, struct rng *g)
{
	for (;;) {
		uint64_t b = rng_next(g);
		unsigned i = (unsigned)(b & 0x7f);
		double u = 2.0 * (((double)(b >> 11) + 0.5) * 0x1p-53) - 1.0, x, f0, f1;

		if (fabs(u) < z->r[i])
			return u * z->x[i];
		if (i == 0)
			return zig_tail(g, u < 0);
		x = u * z->x[i];
		f0 = exp(-0.5 * (z->x[i] * z->x[i] - x * x));
		f1 = exp(-0.5 * (z->x[i + 1] * z->x[i + 1] - x * x));
		if (f1 + rng_u01(g) * (f0 - f1) < 1.0)
			return x;
	}
}

/* ---- the statistic along one path ------------------------------------ */

/*
 * The statistic of every candidate (arms 1..A-1 against arm 0) at each look,
 * for one rho, from innovations z[a * N + r]: what stats_pooled_rho() and
 * stats_robust_t() compute on complete data, by running sums. t[k * C + c],
 * and when m/se are not NULL the mean and standard error too.
 */
static inline __attribute__((always_inline))
void kern_body(size_t A, size_t N, const unsigned *looks, size_t L, const double *z,
	       double rho, float *t, float *m_out, float *se_out)
{
	/*
	 * Running sums over rounds, with e = y - (round mean): over all arms
	 * sum e^2 = sum y^2 - A ybar^2 and sum e_r e_{r-1} = sum y_r y_{r-1} -
	 * A ybar_r ybar_{r-1}; per arm only sum y, e at the first round and y
	 * now, for the centring of each arm's residual series.
	 */
	double yprev[VERDICT_ARMS_MAX], y1[VERDICT_ARMS_MAX], e0[VERDICT_ARMS_MAX];
	double d2[VERDICT_ARMS_MAX], sq = sqrt(1.0 - rho * rho);
	double q = 0.0, lag = 0.0, ybar1 = 0.0, ybarprev = 0.0;
	size_t C = A - 1, k = 0;

	for (size_t a = 0; a < A; a++)
		y1[a] = d2[a] = 0.0;
	for (size_t r = 0; r < N && k < L; r++) {
		double sum = 0.0, sumsq = 0.0, cross = 0.0, ybar;

		for (size_t a = 0; a < A; a++) {
			double y = r == 0 ? z[a * N] : rho * yprev[a] + sq * z[a * N + r];

			sum += y;
			sumsq += y * y;
			if (r > 0)
				cross += y * yprev[a];
			yprev[a] = y;
			y1[a] += y;
		}
		ybar = sum / (double)A;
		q += sumsq - (double)A * ybar * ybar;
		if (r > 0)
			lag += cross - (double)A * ybar * ybarprev;
		else
			for (size_t a = 0; a < A; a++)
				e0[a] = yprev[a] - ybar;
		ybarprev = ybar;
		ybar1 += ybar;
		for (size_t c = 1; c < A; c++) {
			double d = yprev[c] - yprev[0];

			d2[c] += d * d;
		}
		if (r + 1 != looks[k])
			continue;
		{
			double n = (double)(r + 1), num = lag, den = q, rh = 0.0, f, g;

			for (size_t a = 0; a < A; a++) {
				double s1 = y1[a] - ybar1, mu = s1 / n;

				den -= n * mu * mu;
				num += -mu * (2.0 * s1 - e0[a] - (yprev[a] - ybar)) + (n - 1.0) * mu * mu;
			}
			if (r + 1 >= 4 && den > 0.0) {
				rh = (n * num / den + 1.0) / (n - 3.0);
				rh = rh < 0.0 ? 0.0 : rh > STATS_RHO_MAX ? STATS_RHO_MAX : rh;
			}
			f = stats_ar1_mean_vif(r + 1, rh);
			g = (n - f) / (n - 1.0);
			for (size_t c = 1; c < A; c++) {
				double m = (y1[c] - y1[0]) / n, v = (d2[c] - n * m * m) / (n - 1.0), se, tt;

				se = sqrt((v > 0.0 ? v : 0.0) / g * f / n);
				tt = se > 0.0 ? m / se : m > 0.0 ? INFINITY : m < 0.0 ? -INFINITY : 0.0;
				t[k * C + c - 1] = (float)tt;
				if (m_out) {
					m_out[k * C + c - 1] = (float)m;
					se_out[k * C + c - 1] = (float)se;
				}
			}
		}
		k++;
	}
}

/* Constant arm counts let the compiler unroll the loops over arms: the hot path. */
static void kern_run(size_t A, size_t N, const unsigned *looks, size_t L, const double *z,
		     double rho, float *t, float *m_out, float *se_out)
{
	switch (A) {
	case 2:
		kern_body(2, N, looks, L, z, rho, t, m_out, se_out);
		break;
	case 3:
		kern_body(3, N, looks, L, z, rho, t, m_out, se_out);
		break;
	case 4:
		kern_body(4, N, looks, L, z, rho, t, m_out, se_out);
		break;
	default:
		kern_body(A, N, looks, L, z, rho, t, m_out, se_out);
	}
}

void vmc_kernel_t(size_t A, size_t N, const double *z, double rho, double *t_out)
{
	float t[CAND_MAX];
	unsigned look = (unsigned)N;

	kern_run(A, N, &look, 1, z, rho, t, NULL, NULL);
	for (size_t c = 0; c + 1 < A; c++)
		t_out[c] = t[c];
}

static void draw_z(const struct zig *zg, struct rng *g, double *z, size_t n)
{
	for (size_t i = 0; i < n; i++)
		z[i] = zig_normal(zg, g);
}

/* ---- the cache -------------------------------------------------------- */

struct marg {
	size_t n_exact, n_thin, total;	/* per rho */
	float *exact[N_RHO];		/* the top n_exact values, ascending */
	float *thin[N_RHO];		/* every THIN-th of the rest, ascending */
};

struct dset {
	size_t A, L, M;
	unsigned looks[VERDICT2_LOOKS_MAX];
	double bound[VERDICT2_LOOKS_MAX], nominal_p[VERDICT2_LOOKS_MAX];
	float *t1[N_RHO];		/* [M][L]: candidate 1's t */
	bool staged;
	size_t crossed[N_RHO][VERDICT2_LOOKS_MAX];
	size_t n_surv[N_RHO][VERDICT2_LOOKS_MAX];
	float *surv[N_RHO][VERDICT2_LOOKS_MAX];	/* survivors' t at look k, ascending */
	float *em, *es;			/* estimation set [VMC_EST_PATHS][L][C] */
	bool have_look[VERDICT2_LOOKS_MAX];
	struct marg look[VERDICT2_LOOKS_MAX];	/* candidate 1's t at look k, all paths */
};

enum { ENT_DESIGN = 1, ENT_MARG };

struct entry {
	struct entry *next;
	int kind;
	uint64_t key;
	union {
		struct dset d;
		struct marg m;
	} u;
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *cache_head;

static struct entry *cache_find(int kind, uint64_t key)
{
	for (struct entry *x = cache_head; x; x = x->next)
		if (x->kind == kind && x->key == key)
			return x;
	return NULL;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ULL;
	return h;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* ---- marginal null distributions -------------------------------------- */

static uint64_t marg_key(size_t A, size_t n)
{
	uint64_t h = 1469598103934665603ULL, v[4] = { A, n, VERDICT2_MC_PATHS, VERDICT2_MC_SEED };

	return fnv(h, v, sizeof(v));
}

static void swapf(float *a, float *b)
{
	float t = *a;

	*a = *b;
	*b = t;
}

/* The value with exactly i values of x[0..n) above it (0 <= i < n); reorders x (Wirth). */
static float nth_largest(float *x, size_t n, size_t i)
{
	long l = 0, m = (long)n - 1, k = (long)(n - 1 - i);

	while (l < m) {
		float v = x[k];
		long a = l, b = m;

		do {
			while (x[a] < v)
				a++;
			while (v < x[b])
				b--;
			if (a <= b) {
				swapf(&x[a], &x[b]);
				a++;
				b--;
			}
		} while (a <= b);
		if (b < k)
			l = a;
		if (k < a)
			m = b;
	}
	return x[k];
}

/*
 * Rho i of mg from the K samples x (reordered): the top TAIL_KEEP exactly,
 * sorted; every THIN-th of the rest (a subsample, sorted) for the body.
 */
static int marg_set(struct marg *mg, int i, float *x, size_t K)
{
	size_t E = (size_t)ceil(TAIL_KEEP * (double)K), T = (K - E + THIN - 1) / THIN;

	mg->total = K;
	mg->n_exact = E;
	mg->n_thin = T;
	mg->exact[i] = malloc(E * sizeof(float));
	mg->thin[i] = malloc((T ? T : 1) * sizeof(float));
	if (!mg->exact[i] || !mg->thin[i])
		return -ENOMEM;
	nth_largest(x, K, E - 1);	/* x[K-E..K) now holds the top E */
	memcpy(mg->exact[i], x + (K - E), E * sizeof(float));
	qsort(mg->exact[i], E, sizeof(float), cmp_float);
	for (size_t j = 0; j < T; j++)
		mg->thin[i][j] = x[j * THIN];
	qsort(mg->thin[i], T, sizeof(float), cmp_float);
	return 0;
}

static void marg_free(struct marg *mg)
{
	for (int i = 0; i < N_RHO; i++) {
		free(mg->exact[i]);
		free(mg->thin[i]);
		mg->exact[i] = mg->thin[i] = NULL;
	}
}

static int marg_build(struct marg *mg, size_t A, size_t n)
{
	size_t C = A - 1, M = VERDICT2_MC_PATHS, K = M * C;
	unsigned look = (unsigned)n;
	float *all[N_RHO] = { NULL }, t[CAND_MAX];
	double *z = malloc(A * n * sizeof(*z));
	struct zig zg;
	struct rng g;
	int rc = -ENOMEM;

	memset(mg, 0, sizeof(*mg));
	for (int i = 0; i < N_RHO; i++)
		if (!(all[i] = malloc(K * sizeof(float))))
			goto out;
	if (!z)
		goto out;
	zig_init(&zg);
	rng_seed(&g, VERDICT2_MC_SEED ^ (A * 7919ULL + n * 104729ULL));
	for (size_t p = 0; p < M; p++) {
		draw_z(&zg, &g, z, A * n);
		for (int i = 0; i < N_RHO; i++) {
			kern_run(A, n, &look, 1, z, mc_rhos[i], t, NULL, NULL);
			memcpy(all[i] + p * C, t, C * sizeof(float));
		}
	}
	rc = 0;
	for (int i = 0; i < N_RHO && rc == 0; i++)
		rc = marg_set(mg, i, all[i], K);
out:
	for (int i = 0; i < N_RHO; i++)
		free(all[i]);
	free(z);
	if (rc < 0)
		marg_free(mg);
	return rc;
}

/* The cached marginal of (A, n), built on first use; NULL on ENOMEM. Call locked. */
static const struct marg *marg_get(size_t A, size_t n)
{
	uint64_t key = marg_key(A, n);
	struct entry *x = cache_find(ENT_MARG, key);

	if (x)
		return &x->u.m;
	x = calloc(1, sizeof(*x));
	if (!x || marg_build(&x->u.m, A, n) < 0) {
		free(x);
		return NULL;
	}
	x->kind = ENT_MARG;
	x->key = key;
	x->next = cache_head;
	cache_head = x;
	return &x->u.m;
}

/* Value v of rho i with P(T > v) ~ p. */
static double marg_q(const struct marg *mg, int i, double p)
{
	double cnt = p * (double)mg->total;	/* values above the quantile */

	if (cnt <= (double)mg->n_exact) {
		size_t above = (size_t)floor(cnt);

		if (above >= mg->n_exact)
			above = mg->n_exact - 1;
		return mg->exact[i][mg->n_exact - 1 - above];
	}
	{
		double pos = ((double)mg->total - cnt) / THIN;	/* index into thin */
		size_t j = (size_t)floor(pos);

		if (j + 1 >= mg->n_thin)
			return mg->thin[i][mg->n_thin - 1];
		return mg->thin[i][j] + (pos - (double)j) * (mg->thin[i][j + 1] - mg->thin[i][j]);
	}
}

/* P(T >= t) for rho i. */
static double marg_tail(const struct marg *mg, int i, double t)
{
	size_t lo, hi;

	if (mg->n_exact && t >= mg->exact[i][0]) {
		lo = 0;
		hi = mg->n_exact;
		while (lo < hi) {		/* first index with value >= t */
			size_t mid = (lo + hi) / 2;

			if (mg->exact[i][mid] < t)
				lo = mid + 1;
			else
				hi = mid;
		}
		return (double)(mg->n_exact - lo) / (double)mg->total;
	}
	lo = 0;
	hi = mg->n_thin;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (mg->thin[i][mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 1.0 - (double)(lo * THIN) / (double)mg->total;
}

static double marg_q_lf(const struct marg *mg, double p)
{
	double q = -INFINITY;

	for (int i = 0; i < N_RHO; i++) {
		double v = marg_q(mg, i, p);

		q = v > q ? v : q;
	}
	return q;
}

static double marg_tail_lf(const struct marg *mg, double t)
{
	double p = 0.0;

	for (int i = 0; i < N_RHO; i++) {
		double v = marg_tail(mg, i, t);

		p = v > p ? v : p;
	}
	return p;
}

double verdict2_null_quantile(size_t n_arms, size_t n, double p)
{
	const struct marg *mg;
	double q = NAN;

	if (n_arms < 2 || n_arms > VERDICT_ARMS_MAX || n < 2 || n > VERDICT2_ROUNDS_MAX ||
	    !(p > 0.0 && p < 1.0))
		return NAN;
	pthread_mutex_lock(&cache_lock);
	mg = marg_get(n_arms, n);
	if (mg)
		q = marg_q_lf(mg, p);
	pthread_mutex_unlock(&cache_lock);
	return q;
}

double verdict2_null_tail(size_t n_arms, size_t n, double t)
{
	const struct marg *mg;
	double p = NAN;

	if (n_arms < 2 || n_arms > VERDICT_ARMS_MAX || n < 2 || n > VERDICT2_ROUNDS_MAX || isnan(t))
		return NAN;
	pthread_mutex_lock(&cache_lock);
	mg = marg_get(n_arms, n);
	if (mg)
		p = marg_tail_lf(mg, t);
	pthread_mutex_unlock(&cache_lock);
	return p;
}

/* ---- design bounds ----------------------------------------------------- */

static uint64_t design_key(const struct verdict2_design *d)
{
	uint64_t h = 1469598103934665603ULL, v[4] = { d->n_candidates + 1, d->n_looks,
						      VERDICT2_MC_PATHS, VERDICT2_MC_SEED };

	h = fnv(h, v, sizeof(v));
	h = fnv(h, d->rounds, d->n_looks * sizeof(d->rounds[0]));
	h = fnv(h, d->frac, d->n_looks * sizeof(d->frac[0]));
	h = fnv(h, &d->alpha_speed, sizeof(d->alpha_speed));
	/* a truncated design depends on the bounds it keeps */
	h = fnv(h, &d->n_planned, sizeof(d->n_planned));
	h = fnv(h, d->planned, d->n_planned * sizeof(d->planned[0]));
	return h;
}

/* Simulate the paths: J (largest t) and candidate 1's t per rho, [M][L] each. */
static void design_paths(size_t A, const unsigned *looks, size_t L, float **J, float **t1)
{
	size_t C = A - 1, N = looks[L - 1], M = VERDICT2_MC_PATHS;
	double z[VERDICT_ARMS_MAX * VERDICT2_ROUNDS_MAX];
	float t[VERDICT2_LOOKS_MAX * CAND_MAX];
	struct zig zg;
	struct rng g;

	zig_init(&zg);
	rng_seed(&g, VERDICT2_MC_SEED ^ (A * 31337ULL + N));
	for (size_t p = 0; p < M; p++) {
		draw_z(&zg, &g, z, A * N);
		for (int i = 0; i < N_RHO; i++) {
			kern_run(A, N, looks, L, z, mc_rhos[i], t, NULL, NULL);
			for (size_t k = 0; k < L; k++) {
				float mx = t[k * C];

				for (size_t c = 1; c < C; c++)
					mx = t[k * C + c] > mx ? t[k * C + c] : mx;
				J[i][p * L + k] = mx;
				t1[i][p * L + k] = t[k * C];
			}
		}
	}
}

/* Bounds look by look: each rho's cumulative crossing at most alpha_speed frac[k]. */
static void calibrate(struct verdict2_design *d, size_t fixed, float **J, float **t1, float *buf,
		      unsigned char **alive)
{
	size_t L = d->n_looks, M = VERDICT2_MC_PATHS;
	double cum[N_RHO] = { 0 };

	for (size_t k = 0; k < L; k++) {
		double target = d->alpha_speed * d->frac[k], c = -INFINITY;

		if (k < fixed) {
			c = d->bound[k];
		} else {
			for (int i = 0; i < N_RHO; i++) {
				double room = (target - cum[i]) * (double)M, need;
				size_t n = 0, allow;

				for (size_t p = 0; p < M; p++)
					if (alive[i][p])
						buf[n++] = J[i][p * L + k];
				if (room < 0.0 || n == 0) {
					need = INFINITY;
				} else {
					allow = (size_t)floor(room + 1e-9);
					need = allow >= n ? -INFINITY : nth_largest(buf, n, allow);
				}
				c = need > c ? need : c;
			}
			if (!isfinite(c))
				c = c > 0 ? FLT_MAX : -FLT_MAX;
		}
		d->bound[k] = c;
		d->nominal_p[k] = 0.0;
		for (int i = 0; i < N_RHO; i++) {
			size_t over = 0;

			for (size_t p = 0; p < M; p++) {
				if (alive[i][p] && J[i][p * L + k] > c) {
					alive[i][p] = 0;
					cum[i] += 1.0 / (double)M;
				}
				over += t1[i][p * L + k] > c;
			}
			if ((double)over / (double)M > d->nominal_p[k])
				d->nominal_p[k] = (double)over / (double)M;
		}
	}
}

static void dset_free(struct dset *s)
{
	for (int i = 0; i < N_RHO; i++) {
		free(s->t1[i]);
		for (size_t k = 0; k < VERDICT2_LOOKS_MAX; k++)
			free(s->surv[i][k]);
	}
	free(s->em);
	free(s->es);
	for (size_t k = 0; k < VERDICT2_LOOKS_MAX; k++)
		marg_free(&s->look[k]);
}

int vmc_design_bounds(struct verdict2_design *d, size_t fixed, struct st_err *e)
{
	size_t L = d->n_looks, A = d->n_candidates + 1, M = VERDICT2_MC_PATHS;
	float *J[N_RHO] = { NULL }, *buf = NULL;
	unsigned char *alive[N_RHO] = { NULL };
	struct entry *x;
	int rc = 0;

	d->key = design_key(d);
	pthread_mutex_lock(&cache_lock);
	x = cache_find(ENT_DESIGN, d->key);
	if (x) {
		memcpy(d->bound, x->u.d.bound, sizeof(d->bound));
		memcpy(d->nominal_p, x->u.d.nominal_p, sizeof(d->nominal_p));
		goto out;
	}
	x = calloc(1, sizeof(*x));
	buf = malloc(M * sizeof(float));
	if (!x || !buf)
		goto nomem;
	for (int i = 0; i < N_RHO; i++) {
		J[i] = malloc(M * L * sizeof(float));
		x->u.d.t1[i] = malloc(M * L * sizeof(float));
		alive[i] = malloc(M);
		if (!J[i] || !x->u.d.t1[i] || !alive[i])
			goto nomem;
		memset(alive[i], 1, M);
	}
	design_paths(A, d->rounds, L, J, x->u.d.t1);
	calibrate(d, fixed, J, x->u.d.t1, buf, alive);
	x->kind = ENT_DESIGN;
	x->key = d->key;
	x->u.d.A = A;
	x->u.d.L = L;
	x->u.d.M = M;
	memcpy(x->u.d.looks, d->rounds, sizeof(x->u.d.looks));
	memcpy(x->u.d.bound, d->bound, sizeof(d->bound));
	memcpy(x->u.d.nominal_p, d->nominal_p, sizeof(d->nominal_p));
	x->next = cache_head;
	cache_head = x;
	goto out;
nomem:
	if (x)
		dset_free(&x->u.d);
	free(x);
	rc = err_set(e, -ENOMEM, "out of memory for the design's Monte-Carlo paths");
out:
	pthread_mutex_unlock(&cache_lock);
	for (int i = 0; i < N_RHO; i++) {
		free(J[i]);
		free(alive[i]);
	}
	free(buf);
	return rc;
}

/* ---- quantiles at a look ------------------------------------------------ */

/* The marginal of look k from the design's own paths (once); call locked. */
static const struct marg *dset_look(struct dset *s, size_t k)
{
	float *v;
	int rc = 0;

	if (s->have_look[k])
		return &s->look[k];
	v = malloc(s->M * sizeof(float));
	if (!v)
		return NULL;
	for (int i = 0; i < N_RHO && rc == 0; i++) {
		for (size_t p = 0; p < s->M; p++)
			v[p] = s->t1[i][p * s->L + k];
		rc = marg_set(&s->look[k], i, v, s->M);
	}
	free(v);
	if (rc < 0) {
		marg_free(&s->look[k]);
		return NULL;
	}
	s->have_look[k] = true;
	return &s->look[k];
}

double vmc_look_quantile(const struct verdict2_design *d, size_t k, double p)
{
	struct entry *x;
	const struct marg *mg;
	double q = NAN;

	if (!d || k >= d->n_looks || !(p > 0.0 && p < 1.0))
		return NAN;
	pthread_mutex_lock(&cache_lock);
	x = cache_find(ENT_DESIGN, d->key);
	if (x && (mg = dset_look(&x->u.d, k)))
		q = marg_q_lf(mg, p);
	pthread_mutex_unlock(&cache_lock);
	return q;
}

double vmc_look_tail(const struct verdict2_design *d, size_t k, double t)
{
	struct entry *x;
	const struct marg *mg;
	double p = NAN;

	if (!d || k >= d->n_looks || isnan(t))
		return NAN;
	pthread_mutex_lock(&cache_lock);
	x = cache_find(ENT_DESIGN, d->key);
	if (x && (mg = dset_look(&x->u.d, k)))
		p = marg_tail_lf(mg, t);
	pthread_mutex_unlock(&cache_lock);
	return p;
}

/* ---- stagewise p-values -------------------------------------------------- */

/* Sort survivors per look (once); call locked. */
static int dset_stage(struct dset *s)
{
	if (s->staged)
		return 0;
	for (int i = 0; i < N_RHO; i++) {
		unsigned char *crossed = calloc(s->M, 1);

		if (!crossed)
			return -ENOMEM;
		for (size_t k = 0; k < s->L; k++) {
			size_t n = 0, before = 0;
			float *v = malloc(s->M * sizeof(float));

			if (!v) {
				free(crossed);
				return -ENOMEM;
			}
			for (size_t p = 0; p < s->M; p++) {
				if (crossed[p]) {
					before++;
					continue;
				}
				v[n++] = s->t1[i][p * s->L + k];
			}
			qsort(v, n, sizeof(float), cmp_float);
			s->crossed[i][k] = before;
			s->n_surv[i][k] = n;
			s->surv[i][k] = v;
			for (size_t p = 0; p < s->M; p++)
				if (s->t1[i][p * s->L + k] > s->bound[k])
					crossed[p] = 1;
		}
		free(crossed);
	}
	s->staged = true;
	return 0;
}

double vmc_stage_p(const struct verdict2_design *d, size_t k, double t)
{
	struct entry *x;
	double p = NAN;

	if (!d || k >= d->n_looks || isnan(t))
		return NAN;
	pthread_mutex_lock(&cache_lock);
	x = cache_find(ENT_DESIGN, d->key);
	if (x && dset_stage(&x->u.d) == 0) {
		struct dset *s = &x->u.d;

		p = 0.0;
		for (int i = 0; i < N_RHO; i++) {
			size_t lo = 0, hi = s->n_surv[i][k];
			double v;

			while (lo < hi) {
				size_t mid = (lo + hi) / 2;

				if (s->surv[i][k][mid] < t)
					lo = mid + 1;
				else
					hi = mid;
			}
			/* (count + 1) / (M + 1): never 0, valid as a Monte-Carlo p-value */
			v = (double)(s->crossed[i][k] + s->n_surv[i][k] - lo + 1) / (double)(s->M + 1);
			p = v > p ? v : p;
		}
	}
	pthread_mutex_unlock(&cache_lock);
	return p;
}

/* ---- the estimation set: power and bias-adjusted estimates ---------------- */

/* Build the rho-0 set of means and standard errors once; call locked. */
static int dset_est(struct dset *s)
{
	size_t C = s->A - 1, N = s->looks[s->L - 1], W = s->L * C;
	double z[VERDICT_ARMS_MAX * VERDICT2_ROUNDS_MAX];
	float t[VERDICT2_LOOKS_MAX * CAND_MAX];
	struct zig zg;
	struct rng g;

	if (s->em)
		return 0;
	s->em = malloc(VMC_EST_PATHS * W * sizeof(float));
	s->es = malloc(VMC_EST_PATHS * W * sizeof(float));
	if (!s->em || !s->es) {
		free(s->em);
		free(s->es);
		s->em = s->es = NULL;
		return -ENOMEM;
	}
	zig_init(&zg);
	rng_seed(&g, VERDICT2_MC_SEED ^ 0x5eedULL ^ (s->A * 31337ULL + N));
	for (size_t p = 0; p < VMC_EST_PATHS; p++) {
		draw_z(&zg, &g, z, s->A * N);
		kern_run(s->A, N, s->looks, s->L, z, 0.0, t, s->em + p * W, s->es + p * W);
	}
	return 0;
}

static struct dset *est_get(const struct verdict2_design *d)
{
	struct entry *x = cache_find(ENT_DESIGN, d->key);

	return x && dset_est(&x->u.d) == 0 ? &x->u.d : NULL;
}

double vmc_power(const struct verdict2_design *d, double theta, double min_log, const double *q97)
{
	struct dset *s;
	size_t hits = 0, C;

	if (!d || !q97 || !isfinite(theta))
		return NAN;
	pthread_mutex_lock(&cache_lock);
	s = est_get(d);
	if (!s) {
		pthread_mutex_unlock(&cache_lock);
		return NAN;
	}
	C = s->A - 1;
	for (size_t p = 0; p < VMC_EST_PATHS; p++) {
		const float *m = s->em + p * s->L * C, *se = s->es + p * s->L * C;

		for (size_t k = 0; k < s->L; k++) {
			int best = -1;
			double best_m = -INFINITY;
			bool all_futile = true;

			for (size_t c = 0; c < C; c++) {
				double mm = m[k * C + c] + (c == 0 ? theta : 0.0), sv = se[k * C + c];

				if (sv > 0 && mm / sv > s->bound[k] && mm >= min_log && mm > best_m) {
					best = (int)c;
					best_m = mm;
				}
				if (!(mm + q97[k] * sv < min_log))
					all_futile = false;
			}
			if (best >= 0) {
				hits += best == 0;
				break;
			}
			if (all_futile)
				break;
		}
	}
	pthread_mutex_unlock(&cache_lock);
	return (double)hits / VMC_EST_PATHS;
}

/* P_theta(more extreme than m at look k), stagewise ordering, candidate 1's marginal. */
static double adj_p(const struct dset *s, size_t k, double m, double theta)
{
	size_t C = s->A - 1, more = 0;

	for (size_t p = 0; p < VMC_EST_PATHS; p++) {
		const float *mm = s->em + p * s->L * C, *se = s->es + p * s->L * C;
		bool crossed = false;

		for (size_t j = 0; j < k && !crossed; j++)
			crossed = se[j * C] > 0 && (mm[j * C] + theta) / se[j * C] > s->bound[j];
		more += crossed || mm[k * C] + theta >= m;
	}
	return (double)more / VMC_EST_PATHS;
}

static double adj_solve(const struct dset *s, size_t k, double m, double target)
{
	double lo = m - 10.0, hi = m + 10.0;	/* m's sd in path units is at most 1 */

	for (int it = 0; it < 40 && hi - lo > 1e-6; it++) {
		double mid = 0.5 * (lo + hi);

		if (adj_p(s, k, m, mid) < target)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

int vmc_adjust(const struct verdict2_design *d, size_t k, double m, double level,
	       double *est, double *lo, double *hi)
{
	struct dset *s;

	if (!d || k >= d->n_looks || !isfinite(m) || !(level > 0.0 && level < 1.0))
		return -EINVAL;
	pthread_mutex_lock(&cache_lock);
	s = est_get(d);
	if (s) {
		*est = adj_solve(s, k, m, 0.5);
		*lo = adj_solve(s, k, m, (1.0 - level) / 2.0);
		*hi = adj_solve(s, k, m, 1.0 - (1.0 - level) / 2.0);
	}
	pthread_mutex_unlock(&cache_lock);
	return s ? 0 : -ENOMEM;
}
