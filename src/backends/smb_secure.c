/*
 * smb_secure.c - the SMB backend's signing and encryption: the options
 * (Samba's own client settings: --smb-signing, --smb-encrypt and the SMB3
 * algorithm lists), how libsmbclient is given them, and what the session
 * really negotiated, read back from the connection libsmbclient made.
 *
 * Giving them: libsmbclient takes signing and the algorithm lists from
 * smb.conf only.  smbc_setConfiguration loads a file on top of what it has
 * read already (the user's smb.conf or ~/.smb/smb.conf), so each context
 * gets a private file with only the settings given, loaded and removed at
 * once.  Each: the settings are process-wide, but libsmbclient drops them
 * when its last context is freed and again when a new context is made, so
 * they are loaded between smbc_new_context and smbc_init_context, which is
 * where they held in every case measured.  The user's files are never
 * written and still count for everything else.
 * --smb-encrypt is also given as libsmbclient's encryption level
 * (smbc_setOptionSmbEncryptionLevel), which is what makes it ask.
 *
 * Reading back: libsmbclient 4.17 has no call that tells the dialect or
 * the algorithms, and does not enforce what it was asked: a guest session
 * is not signed under `client signing = required`, and a session whose
 * encryption could not be turned on carries on in clear under `required`.
 * Samba's client library underneath (libcli-smb-common, liblibsmb), which
 * libsmbclient loads, exports getters on a connection and a tree connect
 * (smbXcli_conn_protocol, smb2cli_conn_server_signing_algo,
 * smb2cli_tcon_is_encryption_on, ...): they are looked up at run time, as
 * tevent's call is in smb_session.c.  The connection is reached through
 * libsmbclient's public server-cache hook (the SMBCSRV it is given starts
 * with its cli_state) and talloc, whose children of a cli_state are its
 * connection and tree connects.  Nothing is changed through them: they
 * are only read.  Where a symbol is missing (another Samba), what it would
 * tell is "unknown", and a required mode cannot be confirmed: refused.
 *
 * Kerberos is out of scope: the backend logs on with NTLMSSP (a user and
 * password, or guest).
 *
 * Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "environment.h"
#include "smb.h"
#include "util.h"

/* ---- the options: Samba's values and names ---- */

/* The values of `client signing` and `client smb encrypt`, with the
 * aliases smb.conf accepts (Samba's enum_smb_signing_vals). */
static const struct {
	const char *name;
	enum smb_mode mode;
} mode_names[] = {
	{ "default", SMB_MODE_DEFAULT },
	{ "off", SMB_MODE_OFF },	{ "no", SMB_MODE_OFF },
	{ "false", SMB_MODE_OFF },	{ "0", SMB_MODE_OFF },
	{ "disabled", SMB_MODE_OFF },	{ "if_required", SMB_MODE_IF_REQUIRED },
	{ "yes", SMB_MODE_IF_REQUIRED }, { "true", SMB_MODE_IF_REQUIRED },
	{ "1", SMB_MODE_IF_REQUIRED },	{ "on", SMB_MODE_IF_REQUIRED },
	{ "enabled", SMB_MODE_IF_REQUIRED }, { "auto", SMB_MODE_IF_REQUIRED },
	{ "desired", SMB_MODE_DESIRED }, { "required", SMB_MODE_REQUIRED },
	{ "mandatory", SMB_MODE_REQUIRED }, { "force", SMB_MODE_REQUIRED },
	{ "forced", SMB_MODE_REQUIRED }, { "enforced", SMB_MODE_REQUIRED },
};

/* The canonical spelling, as written to smb.conf and reported. */
const char *smb_mode_name(enum smb_mode mode)
{
	static const char *const canonical[] = {
		[SMB_MODE_UNSET] = "unset", [SMB_MODE_DEFAULT] = "default",
		[SMB_MODE_OFF] = "off", [SMB_MODE_IF_REQUIRED] = "if_required",
		[SMB_MODE_DESIRED] = "desired", [SMB_MODE_REQUIRED] = "required",
	};

	return canonical[mode];
}

/* The SMB3 algorithms Samba 4.17 knows (smb.conf(5)), in its default
 * order of preference. */
static const char *const signing_algorithms[] = { "AES-128-GMAC", "AES-128-CMAC", "HMAC-SHA256" };
static const char *const encryption_algorithms[] = { "AES-128-GCM", "AES-128-CCM", "AES-256-GCM",
						     "AES-256-CCM" };

static int parse_mode(const char *option, const char *arg, enum smb_mode *mode)
{
	*mode = SMB_MODE_UNSET;
	if (!arg)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(mode_names); i++)
		if (strcasecmp(arg, mode_names[i].name) == 0) {
			*mode = mode_names[i].mode;
			return 0;
		}
	warnx_("%s '%s': expected off, if_required, desired or required (or an alias smb.conf accepts)",
	       option, arg);
	return -1;
}

/* A list of algorithm names (commas or blanks between them), each known
 * and given once, into out as "A, B, C" in the spelling of known[]. */
static int parse_algorithms(const char *option, const char *arg, const char *const *known,
			    size_t nknown, char *out, size_t outlen)
{
	char text[256], *save, *name;
	bool seen[8] = { false };
	size_t n = 0;

	out[0] = '\0';
	if (!arg)
		return 0;
	if (strlen(arg) >= sizeof(text))
		goto bad;
	strcpy(text, arg);
	for (name = strtok_r(text, ", \t", &save); name; name = strtok_r(NULL, ", \t", &save)) {
		size_t k;

		for (k = 0; k < nknown && strcasecmp(name, known[k]) != 0; k++)
			;
		if (k == nknown) {
			warnx_("%s: unknown algorithm '%s' (known: %s%s%s%s%s%s%s)", option, name, known[0],
			       nknown > 1 ? ", " : "", nknown > 1 ? known[1] : "", nknown > 2 ? ", " : "",
			       nknown > 2 ? known[2] : "", nknown > 3 ? ", " : "", nknown > 3 ? known[3] : "");
			return -1;
		}
		if (seen[k]) {
			warnx_("%s: %s is given twice", option, known[k]);
			return -1;
		}
		seen[k] = true;
		n += (size_t)snprintf(out + n, outlen - n, "%s%s", n ? ", " : "", known[k]);
	}
	if (n)
		return 0;
bad:
	warnx_("%s '%s': expected a list of algorithm names, e.g. %s,%s", option, arg, known[0], known[1]);
	return -1;
}

int smb_secure_parse(struct smb_options *o)
{
	if (parse_mode("--smb-signing", o->signing_arg, &o->signing) < 0 ||
	    parse_mode("--smb-encrypt", o->encrypt_arg, &o->encrypt) < 0 ||
	    parse_algorithms("--smb-signing-algorithms", o->signing_algos_arg, signing_algorithms,
			     ARRAY_SIZE(signing_algorithms), o->signing_algos,
			     sizeof(o->signing_algos)) < 0 ||
	    parse_algorithms("--smb-encryption-algorithms", o->cipher_algos_arg,
			     encryption_algorithms, ARRAY_SIZE(encryption_algorithms),
			     o->cipher_algos, sizeof(o->cipher_algos)) < 0)
		return -1;
	return 0;
}

/* ---- giving them to libsmbclient ---- */

/* The client settings of the options, as smb.conf lines; 0 if none. */
static size_t overlay_text(const struct smb_options *o, char *buf, size_t len)
{
	size_t n = 0;

	if (o->signing != SMB_MODE_UNSET)
		n += (size_t)snprintf(buf + n, len - n, "\tclient signing = %s\n",
				      smb_mode_name(o->signing));
	if (o->encrypt != SMB_MODE_UNSET)
		n += (size_t)snprintf(buf + n, len - n, "\tclient smb encrypt = %s\n",
				      smb_mode_name(o->encrypt));
	if (o->signing_algos[0])
		n += (size_t)snprintf(buf + n, len - n, "\tclient smb3 signing algorithms = %s\n",
				      o->signing_algos);
	if (o->cipher_algos[0])
		n += (size_t)snprintf(buf + n, len - n, "\tclient smb3 encryption algorithms = %s\n",
				      o->cipher_algos);
	return n;
}

int smb_secure_apply(const struct smb_options *o, SMBCCTX *ctx, char *error, size_t len)
{
	char lines[1024], path[PATH_MAX], text[1200];
	const char *tmp = getenv("TMPDIR");
	int fd, rc, err;
	size_t n = overlay_text(o, lines, sizeof(lines));

	if (!n)
		return 0;	/* nothing given: libsmbclient's own configuration */
	snprintf(text, sizeof(text),
		 "# dbench's client settings for one connection (removed once loaded)\n[global]\n%s",
		 lines);
	snprintf(path, sizeof(path), "%s/dbench-smb.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	if (fd < 0) {
		snprintf(error, len, "cannot write libsmbclient's settings to %s: %s", path,
			 strerror(errno));
		return -1;
	}
	rc = write_all(fd, text, strlen(text));
	err = errno;
	if (close(fd) < 0 && rc == 0) {
		rc = -1;
		err = errno;
	}
	if (rc == 0 && smbc_setConfiguration(ctx, path) < 0) {
		rc = -1;
		err = errno;
	}
	unlink(path);
	if (rc < 0)
		snprintf(error, len, "libsmbclient could not load the settings of the smb options from %s: %s",
			 path, strerror(err));
	return rc;
}

/* The connection libsmbclient added to its cache last: the hook below
 * sees each one as it is made (one process connects one context at a
 * time). */
static SMBCSRV *last_server;
static smbc_add_cached_srv_fn samba_add_server;

static int note_server(SMBCCTX *ctx, SMBCSRV *srv, const char *server, const char *share,
		       const char *workgroup, const char *user)
{
	last_server = srv;
	return samba_add_server(ctx, srv, server, share, workgroup, user);
}

void smb_secure_context(const struct smb_options *o, SMBCCTX *ctx)
{
	static const smbc_smb_encrypt_level level[] = {
		[SMB_MODE_UNSET] = SMBC_ENCRYPTLEVEL_DEFAULT,
		[SMB_MODE_DEFAULT] = SMBC_ENCRYPTLEVEL_DEFAULT,
		[SMB_MODE_OFF] = SMBC_ENCRYPTLEVEL_NONE,
		[SMB_MODE_IF_REQUIRED] = SMBC_ENCRYPTLEVEL_DEFAULT,	/* the overlay's */
		[SMB_MODE_DESIRED] = SMBC_ENCRYPTLEVEL_REQUEST,
		[SMB_MODE_REQUIRED] = SMBC_ENCRYPTLEVEL_REQUIRE,
	};

	smbc_setOptionSmbEncryptionLevel(ctx, level[o->encrypt]);
	if (!samba_add_server)
		samba_add_server = smbc_getFunctionAddCachedServer(ctx);
	smbc_setFunctionAddCachedServer(ctx, note_server);
	last_server = NULL;
}

/* ---- reading back what was negotiated ---- */

/* Samba's exported calls, looked up once. */
static struct {
	bool tried, found;
	const char *(*talloc_get_name)(const void *ptr);
	void (*talloc_report_depth_cb)(const void *ptr, int depth, int max_depth,
				       void (*fn)(const void *ptr, int depth, int max_depth,
						  int is_ref, void *arg),
				       void *arg);
	uint32_t (*cli_state_get_tid)(void *cli);
	int (*smbXcli_conn_protocol)(void *conn);
	const char *(*smb_protocol_types_string)(int protocol);
	uint16_t (*smb2cli_conn_server_signing_algo)(void *conn);
	uint16_t (*smb2cli_conn_server_encryption_algo)(void *conn);
	const char *(*smb3_signing_algorithm_name)(uint16_t algo);
	const char *(*smb3_encryption_algorithm_name)(uint16_t algo);
	uint32_t (*smb2cli_tcon_current_id)(void *tcon);
	bool (*smb2cli_tcon_is_signing_on)(void *tcon);
	bool (*smb2cli_tcon_is_encryption_on)(void *tcon);
} samba;

static bool lookup(void *fnp, const char *name)
{
	void *sym = dlsym(RTLD_DEFAULT, name);

	memcpy(fnp, &sym, sizeof(sym));
	return sym != NULL;
}

static bool samba_calls(void)
{
	if (samba.tried)
		return samba.found;
	samba.tried = true;
	samba.found = lookup(&samba.talloc_get_name, "talloc_get_name") &&
		      lookup(&samba.talloc_report_depth_cb, "talloc_report_depth_cb") &&
		      lookup(&samba.cli_state_get_tid, "cli_state_get_tid") &&
		      lookup(&samba.smbXcli_conn_protocol, "smbXcli_conn_protocol") &&
		      lookup(&samba.smb_protocol_types_string, "smb_protocol_types_string") &&
		      lookup(&samba.smb2cli_conn_server_signing_algo, "smb2cli_conn_server_signing_algo") &&
		      lookup(&samba.smb2cli_conn_server_encryption_algo,
			     "smb2cli_conn_server_encryption_algo") &&
		      lookup(&samba.smb3_signing_algorithm_name, "smb3_signing_algorithm_name") &&
		      lookup(&samba.smb3_encryption_algorithm_name, "smb3_encryption_algorithm_name") &&
		      lookup(&samba.smb2cli_tcon_current_id, "smb2cli_tcon_current_id") &&
		      lookup(&samba.smb2cli_tcon_is_signing_on, "smb2cli_tcon_is_signing_on") &&
		      lookup(&samba.smb2cli_tcon_is_encryption_on, "smb2cli_tcon_is_encryption_on");
	return samba.found;
}

/* A cli_state's talloc children: its connection and tree connects. */
struct children {
	void *conn;
	void *tcon[8];
	int ntcon;
};

static void child_of_cli(const void *ptr, int depth, int max_depth, int is_ref, void *arg)
{
	struct children *ch = arg;
	const char *name;

	(void)max_depth;
	if (depth != 1 || is_ref)
		return;
	name = samba.talloc_get_name(ptr);
	if (strcmp(name, "struct smbXcli_conn") == 0)
		ch->conn = (void *)ptr;
	else if (strcmp(name, "struct smbXcli_tcon") == 0 && ch->ntcon < (int)ARRAY_SIZE(ch->tcon))
		ch->tcon[ch->ntcon++] = (void *)ptr;
}

static void copy_name(char *dst, size_t len, const char *name)
{
	snprintf(dst, len, "%s", name && *name ? name : "none");
}

/* Fill f from the connection just made; false if it cannot be read. */
static bool read_session(struct smb_facts *f)
{
	struct children ch = { 0 };
	void *cli, *tcon = NULL;
	uint32_t tid;
	int proto;

	if (!last_server || !samba_calls())
		return false;
	memcpy(&cli, last_server, sizeof(cli));	/* SMBCSRV's first member */
	if (!cli || strcmp(samba.talloc_get_name(cli), "struct cli_state") != 0)
		return false;
	samba.talloc_report_depth_cb(cli, 0, 1, child_of_cli, &ch);
	if (!ch.conn)
		return false;
	tid = samba.cli_state_get_tid(cli);
	for (int i = 0; i < ch.ntcon && !tcon; i++)
		if (samba.smb2cli_tcon_current_id(ch.tcon[i]) == tid)
			tcon = ch.tcon[i];
	if (!tcon)
		return false;
	proto = samba.smbXcli_conn_protocol(ch.conn);
	copy_name(f->dialect, sizeof(f->dialect), samba.smb_protocol_types_string(proto));
	copy_name(f->signing_algo, sizeof(f->signing_algo),
		  samba.smb3_signing_algorithm_name(samba.smb2cli_conn_server_signing_algo(ch.conn)));
	copy_name(f->cipher, sizeof(f->cipher),
		  samba.smb3_encryption_algorithm_name(samba.smb2cli_conn_server_encryption_algo(ch.conn)));
	/* an encrypted message carries no SMB2 signature: the transform
	 * header's authentication covers it */
	f->encrypted = samba.smb2cli_tcon_is_encryption_on(tcon);
	f->is_signed = !f->encrypted && samba.smb2cli_tcon_is_signing_on(tcon);
	return true;
}

/* Why the session is not encrypted, for the refusal. */
static const char *why_clear(const struct smb_options *o, const struct smb_facts *f)
{
	if (strncmp(f->dialect, "SMB2", 4) == 0)
		return "SMB2 dialects have no encryption: allow SMB3 with --smb-protocol";
	if (strcmp(f->cipher, "none") == 0)
		return "the server negotiated no cipher: it does not offer encryption";
	if (!o->user[0])
		return "a guest session has no key to encrypt with: give --smb-user";
	return "libsmbclient did not turn it on";
}

int smb_secure_check(const struct smb_options *o, struct smb_facts *f, char *error, size_t len)
{
	bool need_sign = o->signing == SMB_MODE_REQUIRED;
	bool need_encrypt = o->encrypt == SMB_MODE_REQUIRED;

	memset(f, 0, sizeof(*f));
	f->known = read_session(f);
	last_server = NULL;
	if (!f->known) {
		if (!need_sign && !need_encrypt)
			return 0;
		snprintf(error, len, "%s: cannot tell whether the session is %s: this libsmbclient does not show it",
			 o->display, need_encrypt ? "encrypted" : "signed");
		return -1;
	}
	if (need_encrypt && !f->encrypted) {
		snprintf(error, len, "%s: --smb-encrypt required, but the %s session is not encrypted (%s)",
			 o->display, f->dialect, why_clear(o, f));
		return -1;
	}
	if (need_sign && !f->is_signed && !f->encrypted) {
		snprintf(error, len, "%s: --smb-signing required, but the %s session is not signed (%s)",
			 o->display, f->dialect,
			 o->user[0] ? "libsmbclient did not sign it" :
					  "a guest session has no key to sign with: give --smb-user");
		return -1;
	}
	return 0;
}

void smb_secure_note(const struct smb_facts *f)
{
	if (!f->known) {
		environment_note_session("dialect", "unknown");
		return;
	}
	environment_note_session("dialect", f->dialect);
	environment_note_session("signed", f->is_signed ? "yes" : "no");
	environment_note_session("signing_algorithm", f->signing_algo);
	environment_note_session("encrypted", f->encrypted ? "yes" : "no");
	environment_note_session("cipher", f->cipher);
}
