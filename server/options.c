/* options.c: the daemon's settings, from flags and environment variables,
 * with their defaults and the limits they must keep. */
#include "options.h"
#include "store/netcap.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Every setting: its flag, its environment variable, its default. */
const char usage[] =
"usage: llm-speedd [options]                 serve the leaderboard\n"
"       llm-speedd account add NAME [--db F]  create an account, print its token once\n"
"       llm-speedd account revoke NAME [--db F]\n"
"       llm-speedd sample-run [--help]        print a signed sample run\n"
"       llm-speedd kinds | routes              print the page kinds (JSON) or the routes\n"
"       llm-speedd snapshot DIR [--db FILE]    write a gzipped export and SHA256SUMS to DIR\n"
"       llm-speedd backup --db FILE OUT       an online copy of the database as OUT, with\n"
"                                             OUT.logkey, OUT.checkpoint, OUT.netkey beside it\n"
"       (options may come before or after account add|revoke NAME)\n"
"\n"
"options (each also read from the environment variable shown):\n"
"  --listen HOST:PORT     LLMSPEED_LISTEN          default 127.0.0.1:8080\n"
"  --db FILE              LLMSPEED_DB              default ./data/llm-speed.db\n"
"  --db-group NAME        LLMSPEED_DB_GROUP        the database files are created 0600\n"
"                                                  (owner only) whatever the umask; with\n"
"                                                  a group, 0640 and that group may read\n"
"  --assets DIR           LLMSPEED_ASSETS          templates/, static/, migrations/, schema/;\n"
"                                                  default: the binary's folder\n"
"  --base-url URL         LLMSPEED_BASE_URL        public origin for links,\n"
"                                                  default http://<listen>\n"
"  --threads N            LLMSPEED_THREADS         worker threads, default: one per CPU\n"
"\n"
"limits (load tests and benchmarks raise them for their own traffic):\n"
"  --max-connections N    LLMSPEED_MAX_CONNECTIONS open connections in total, default 1024;\n"
"                                                  more wait in the listen queue; over\n"
"                                                  three quarters open, idle keep-alive\n"
"                                                  connections are shed and a request\n"
"                                                  gets 5 s to arrive\n"
"  --max-per-ip N         LLMSPEED_MAX_PER_IP      open connections per client address\n"
"                                                  (IPv6: per /64), default 32; more are\n"
"                                                  refused at once; a --trust-proxy peer\n"
"                                                  is exempt\n"
"  --timeout SECONDS      LLMSPEED_TIMEOUT         close a connection idle this long,\n"
"                                                  default 10\n"
"  --request-timeout SECONDS LLMSPEED_REQUEST_TIMEOUT a request's line, headers and body\n"
"                                                  must all arrive within this time of\n"
"                                                  its start however slowly they trickle,\n"
"                                                  default 30 (0: off)\n"
"  --max-header-bytes N   LLMSPEED_MAX_HEADER_BYTES request line and headers together;\n"
"                                                  larger gets 431 (a longer address, or\n"
"                                                  over 128 query arguments, 414),\n"
"                                                  default 32768 (at least 8192)\n"
"                         request bodies: 64 KiB for uploads (fixed by the contract),\n"
"                         64 KiB for dispute posts; larger gets 413\n"
"  --upload-rate N        LLMSPEED_UPLOAD_RATE     uploads per minute per account or\n"
"                                                  address, default 30 (0: unlimited);\n"
"                                                  over it: 429 with Retry-After\n"
"  --refusal-rate N       LLMSPEED_REFUSAL_RATE    refused uploads (bad signature or\n"
"                                                  payload, unknown token) per address in\n"
"                                                  any minute, default 120 (0, or\n"
"                                                  --upload-rate 0: unlimited); checked\n"
"                                                  before the signature: over it, 429\n"
"  --dispute-rate N       LLMSPEED_DISPUTE_RATE    dispute posts per minute per address,\n"
"                                                  default 5 (0: unlimited)\n"
"                         wrong moderator tokens: at most 20 per address in any\n"
"                         minute, whatever the other limits; then 429\n"
"  --search-rate N        LLMSPEED_SEARCH_RATE     searches per minute per address,\n"
"                                                  default 120 (0: unlimited)\n"
"  --keys-per-network N   LLMSPEED_KEYS_PER_NETWORK keys one network (IPv4 /24, IPv6\n"
"                                                  /48) counts for a model digest on a\n"
"                                                  machine with a backend, the first seen,\n"
"                                                  default 3 (0: no cap, and no minimum\n"
"                                                  count of networks anywhere)\n"
"  --new-keys-per-network N LLMSPEED_NEW_KEYS_PER_NETWORK signing keys never seen before\n"
"                                                  one network may bring in a UTC day,\n"
"                                                  default 20 (0, or --upload-rate 0:\n"
"                                                  unlimited); more: 429\n"
"  --db-busy-timeout MS   LLMSPEED_DB_BUSY_TIMEOUT how long a write waits for a database\n"
"                                                  locked by another process before the\n"
"                                                  upload gets 503, default 5000\n"
"  --trust-proxy=ADDR     LLMSPEED_TRUST_PROXY=ADDR  on connections from ADDR (your\n"
"                                                  reverse proxy's address, such as\n"
"                                                  127.0.0.1) take the client address (for\n"
"                                                  rate limits) from the last\n"
"                                                  X-Forwarded-For entry; ADDR is required\n"
"\n"
"operations:\n"
"  --access-log FILE      LLMSPEED_ACCESS_LOG      one line per request, combined log format\n"
"                                                  plus the request time (- : stdout);\n"
"                                                  reopened on SIGHUP; default: none\n"
"  --metrics-allow ADDR[,ADDR] LLMSPEED_METRICS_ALLOW  addresses besides loopback that may\n"
"                                                  read /metrics (under --trust-proxy the\n"
"                                                  forwarded address); others get 404\n"
"  --security-contact URI LLMSPEED_SECURITY_CONTACT  security.txt's Contact (mailto:, https:\n"
"                                                  or tel:); default: /privacy#reporting\n"
"\n"
"  --demo                                          fill an empty database with demo runs\n"
"  --quiet                LLMSPEED_QUIET=1         no informational log lines\n"
"  LLMSPEED_MODERATOR_TOKEN=<secret>               enables dispute moderation\n";

/* Parses a whole decimal number up to UINT_MAX; -1 for anything else
 * (atoi would turn a typo into 0, which for a limit means "unlimited"). */
static int parse_uint(const char *s, unsigned *out)
{
	unsigned long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > UINT_MAX)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static unsigned env_uint(const char *name, unsigned def)
{
	const char *v = getenv(name);
	unsigned n;

	if (!v || !*v)
		return def;
	if (parse_uint(v, &n) < 0) {
		fprintf(stderr, "llm-speedd: %s=%s is not a whole number\n", name, v);
		exit(2);
	}
	return n;
}

/* The number after a flag, or exits naming the flag. */
static unsigned flag_uint(const char *flag, const char *arg)
{
	unsigned n;

	if (parse_uint(arg, &n) < 0) {
		fprintf(stderr, "llm-speedd: --%s wants a whole number, not \"%s\"\n", flag, arg);
		exit(2);
	}
	return n;
}

/* --trust-proxy=ADDR and LLMSPEED_TRUST_PROXY=ADDR: X-Forwarded-For is
 * read on connections from the proxy at ADDR only.  "0" (or nothing)
 * trusts none; a bare flag or "1" (any peer, which would let every
 * direct client spoof its address) is kept here as NULL and refused by
 * check_limits. */
static void set_trust(struct config *c, const char *v)
{
	c->trust_proxy = v && strcmp(v, "0") != 0;
	c->trust_proxy_addr = v && strcmp(v, "0") && strcmp(v, "1") ? v : NULL;
}

static const char *env_str(const char *name, const char *def)
{
	const char *v = getenv(name);
	return v && *v ? v : def;
}

/* The folder of the running binary (assets sit beside it by default). */
static char *exe_dir(void)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);

	if (n <= 0)
		return ".";
	path[n] = '\0';
	return dirname(path);
}

/* Online CPUs, at least 2: serving threads never block on the database
 * (uploads suspend their connection), so one per core keeps them busy. */
static unsigned cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 2 ? (unsigned)(n > 64 ? 64 : n) : 2;
}

void defaults(struct config *c)
{
	c->listen = env_str("LLMSPEED_LISTEN", "127.0.0.1:8080");
	c->db_path = env_str("LLMSPEED_DB", "./data/llm-speed.db");
	c->db_group = env_str("LLMSPEED_DB_GROUP", NULL);
	c->assets = env_str("LLMSPEED_ASSETS", NULL);
	c->base_url = env_str("LLMSPEED_BASE_URL", NULL);
	c->moderator_token = env_str("LLMSPEED_MODERATOR_TOKEN", NULL);
	c->threads = env_uint("LLMSPEED_THREADS", cpu_count());
	c->max_connections = env_uint("LLMSPEED_MAX_CONNECTIONS", 1024);
	c->max_per_ip = env_uint("LLMSPEED_MAX_PER_IP", 32);
	c->conn_timeout = env_uint("LLMSPEED_TIMEOUT", 10);
	c->upload_rate = env_uint("LLMSPEED_UPLOAD_RATE", 30);
	c->refusal_rate = env_uint("LLMSPEED_REFUSAL_RATE", 120);
	c->dispute_rate = env_uint("LLMSPEED_DISPUTE_RATE", 5);
	c->search_rate = env_uint("LLMSPEED_SEARCH_RATE", 120);
	c->request_timeout = env_uint("LLMSPEED_REQUEST_TIMEOUT", 30);
	c->max_header_bytes = env_uint("LLMSPEED_MAX_HEADER_BYTES", 32768);
	c->db_busy_ms = env_uint("LLMSPEED_DB_BUSY_TIMEOUT", 5000);
	set_trust(c, env_str("LLMSPEED_TRUST_PROXY", NULL));
	c->access_log = env_str("LLMSPEED_ACCESS_LOG", NULL);
	c->metrics_allow = env_str("LLMSPEED_METRICS_ALLOW", NULL);
	c->security_contact = env_str("LLMSPEED_SECURITY_CONTACT", NULL);
	c->quiet = env_uint("LLMSPEED_QUIET", 0);
	c->test_stale_ms = -1;        /* CACHE_STALE_MS unless --test-stale-ms */
	c->keys_per_network = env_uint("LLMSPEED_KEYS_PER_NETWORK", NETCAP_KEYS_DEFAULT);
	c->new_keys_per_network = env_uint("LLMSPEED_NEW_KEYS_PER_NETWORK", NETCAP_NEW_KEYS_DEFAULT);
}

/* Refuses limits libmicrohttpd would misread: 0 connections means
 * "unlimited" to it, and too small a connection buffer cannot hold even a
 * response's headers. */
static int check_limits(const struct config *c)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (!c->max_connections || !c->max_per_ip) {
		fprintf(stderr, "llm-speedd: --max-connections and --max-per-ip must be at least 1\n");
		return -1;
	}
	if (c->max_header_bytes < 8192) {
		fprintf(stderr, "llm-speedd: --max-header-bytes must be at least 8192\n");
		return -1;
	}
	if (c->trust_proxy && !c->trust_proxy_addr) {
		fprintf(stderr, "llm-speedd: --trust-proxy needs the address your reverse proxy connects "
			"from, so that no other client can set X-Forwarded-For: write --trust-proxy=127.0.0.1 "
			"(or LLMSPEED_TRUST_PROXY=127.0.0.1) with the proxy's address\n");
		return -1;
	}
	if (c->trust_proxy_addr && inet_pton(AF_INET, c->trust_proxy_addr, &a4) != 1 &&
	    inet_pton(AF_INET6, c->trust_proxy_addr, &a6) != 1) {
		fprintf(stderr, "llm-speedd: --trust-proxy=%s is not an IP address\n", c->trust_proxy_addr);
		return -1;
	}
	return 0;
}

/* Refuses a --metrics-allow entry that is not an IP address and a
 * security contact that is not a mailto:, https: or tel: URI (RFC 9116
 * section 2.5.3) of visible characters. */
static int check_ops(const struct config *c)
{
	unsigned char a[sizeof(struct in6_addr)];
	const char *p = c->metrics_allow, *u = c->security_contact;
	char one[INET6_ADDRSTRLEN + 1];
	size_t n;

	while (p && *p) {
		n = strcspn(p, ",");
		snprintf(one, sizeof one, "%.*s", (int)(n < sizeof one ? n : sizeof one - 1), p);
		if (n >= sizeof one || (inet_pton(AF_INET, one, a) != 1 && inet_pton(AF_INET6, one, a) != 1)) {
			fprintf(stderr, "llm-speedd: --metrics-allow: \"%.*s\" is not an IP address "
				"(list addresses separated by commas, e.g. 10.0.0.5,::1)\n", (int)n, p);
			return -1;
		}
		p += n + (p[n] == ',');
	}
	if (u && ((strncmp(u, "mailto:", 7) && strncmp(u, "https://", 8) && strncmp(u, "tel:", 4)) ||
		  strpbrk(u, " \t\r\n\"<>") || strlen(u) < 6)) {
		fprintf(stderr, "llm-speedd: --security-contact wants a mailto:, https:// or tel: URI, "
			"e.g. mailto:security@example.org, not \"%s\"\n", u);
		return -1;
	}
	return 0;
}

/* Parses the options; returns the index of the first operand, or -1 after
 * printing what is wrong. With `command` 0 it stops at the first operand (the
 * command's name); with 1 argv[0] is the command and options may come
 * anywhere among its operands, which GNU getopt moves to the end. */
int parse_options(int argc, char **argv, struct config *c, int command)
{
	enum { O_LISTEN = 256, O_DB, O_ASSETS, O_BASE, O_THREADS, O_MAXC, O_MAXIP,
	       O_TIMEOUT, O_URATE, O_DRATE, O_TRUST, O_DEMO, O_QUIET, O_HELP,
	       O_REQTIMEOUT, O_HEADER, O_BUSY, O_DBGROUP, O_SRATE, O_RRATE, O_TESTCLOCK, O_TESTHOLD, O_TESTSTALE, O_TESTWARM,
	       O_ACCESSLOG, O_METRICSALLOW, O_SECCONTACT, O_SITEMAPURLS, O_SITEMAPFILE, O_KEYSNET, O_NEWKEYSNET };
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, O_LISTEN },
		{ "db", required_argument, NULL, O_DB },
		{ "db-group", required_argument, NULL, O_DBGROUP },
		{ "assets", required_argument, NULL, O_ASSETS },
		{ "base-url", required_argument, NULL, O_BASE },
		{ "threads", required_argument, NULL, O_THREADS },
		{ "max-connections", required_argument, NULL, O_MAXC },
		{ "max-per-ip", required_argument, NULL, O_MAXIP },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "upload-rate", required_argument, NULL, O_URATE },
		{ "dispute-rate", required_argument, NULL, O_DRATE },
		{ "refusal-rate", required_argument, NULL, O_RRATE },
		{ "search-rate", required_argument, NULL, O_SRATE },
		{ "trust-proxy", optional_argument, NULL, O_TRUST },
		{ "request-timeout", required_argument, NULL, O_REQTIMEOUT },
		{ "max-header-bytes", required_argument, NULL, O_HEADER },
		{ "db-busy-timeout", required_argument, NULL, O_BUSY },
		{ "access-log", required_argument, NULL, O_ACCESSLOG },
		{ "metrics-allow", required_argument, NULL, O_METRICSALLOW },
		{ "security-contact", required_argument, NULL, O_SECCONTACT },
		{ "keys-per-network", required_argument, NULL, O_KEYSNET },
		{ "new-keys-per-network", required_argument, NULL, O_NEWKEYSNET },
		{ "demo", no_argument, NULL, O_DEMO },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "help", no_argument, NULL, O_HELP },
		/* Tests only, so not in usage and with no environment variable:
		 * the clock read from a file (time_test_clock in util/timefmt.h). */
		{ "test-clock", required_argument, NULL, O_TESTCLOCK },
		/* Tests only: while the file exists, a request that leads the
		 * build of a list page waits before building (pages/page.c),
		 * so that a rebuild in flight can be held open. */
		{ "test-hold-builds", required_argument, NULL, O_TESTHOLD },
		/* Tests only: how long a stale list page may be served (ms),
		 * so that a test's own pace cannot pass the bound. */
		{ "test-stale-ms", required_argument, NULL, O_TESTSTALE },
		/* Tests only: 0 builds no page ahead after start
		 * (warm.c), so a test's first request is a build. */
		{ "test-warm", required_argument, NULL, O_TESTWARM },
		/* Tests only: addresses in /sitemap.xml before it is an index
		 * (pages/page_sitemap.c), so the index form is reached without
		 * 50,000 runs. */
		{ "sitemap-page-urls", required_argument, NULL, O_SITEMAPURLS },
		/* Tests only: addresses per file of the index, so that files
		 * smaller than the index's threshold are reached with a few. */
		{ "sitemap-file-urls", required_argument, NULL, O_SITEMAPFILE },
		{ NULL, 0, NULL, 0 },
	};
	int o;

	optind = 0;     /* a fresh scan, also for the second, per-command pass */
	while ((o = getopt_long(argc, argv, command ? "" : "+", opts, NULL)) != -1) {
		switch (o) {
		case O_LISTEN: c->listen = optarg; break;
		case O_DB: c->db_path = optarg; break;
		case O_DBGROUP: c->db_group = optarg; break;
		case O_ASSETS: c->assets = optarg; break;
		case O_BASE: c->base_url = optarg; break;
		case O_THREADS: c->threads = flag_uint("threads", optarg); break;
		case O_MAXC: c->max_connections = flag_uint("max-connections", optarg); break;
		case O_MAXIP: c->max_per_ip = flag_uint("max-per-ip", optarg); break;
		case O_TIMEOUT: c->conn_timeout = flag_uint("timeout", optarg); break;
		case O_URATE: c->upload_rate = flag_uint("upload-rate", optarg); break;
		case O_DRATE: c->dispute_rate = flag_uint("dispute-rate", optarg); break;
		case O_RRATE: c->refusal_rate = flag_uint("refusal-rate", optarg); break;
		case O_SRATE: c->search_rate = flag_uint("search-rate", optarg); break;
		case O_REQTIMEOUT: c->request_timeout = flag_uint("request-timeout", optarg); break;
		case O_HEADER: c->max_header_bytes = flag_uint("max-header-bytes", optarg); break;
		case O_BUSY: c->db_busy_ms = flag_uint("db-busy-timeout", optarg); break;
		case O_TRUST: set_trust(c, optarg ? optarg : "1"); break;
		case O_ACCESSLOG: c->access_log = optarg; break;
		case O_METRICSALLOW: c->metrics_allow = optarg; break;
		case O_SECCONTACT: c->security_contact = optarg; break;
		case O_KEYSNET: c->keys_per_network = flag_uint("keys-per-network", optarg); break;
		case O_NEWKEYSNET: c->new_keys_per_network = flag_uint("new-keys-per-network", optarg); break;
		case O_DEMO: c->demo = 1; break;
		case O_QUIET: c->quiet = 1; break;
		case O_TESTCLOCK: c->test_clock = optarg; break;
		case O_TESTHOLD: c->test_hold_builds = optarg; break;
		case O_TESTSTALE: c->test_stale_ms = (long)strtoul(optarg, NULL, 10); break;
		case O_TESTWARM: c->test_no_warm = !strcmp(optarg, "0"); break;
		case O_SITEMAPURLS: c->sitemap_page_urls = flag_uint("sitemap-page-urls", optarg); break;
		case O_SITEMAPFILE: c->sitemap_file_urls = flag_uint("sitemap-file-urls", optarg); break;
		case O_HELP: fputs(usage, stdout); exit(0);
		default: fputs(usage, stderr); return -1;
		}
	}
	if (!c->threads || c->threads > 256) {
		fprintf(stderr, "llm-speedd: --threads must be between 1 and 256\n");
		return -1;
	}
	if (c->sitemap_page_urls > 50000) {
		fprintf(stderr, "llm-speedd: --sitemap-page-urls must be at most 50000 (sitemaps.org)\n");
		return -1;
	}
	if (check_limits(c) < 0 || check_ops(c) < 0)
		return -1;
	if (!c->assets)
		c->assets = exe_dir();
	return optind;
}

