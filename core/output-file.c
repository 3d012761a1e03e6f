// SPDX-License-Identifier: MIT
/*
 * output-file.c - create output files by a temporary name and a rename.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "core/output-file.h"
#include "core/parse-options.h"

/* What sits at @path, other than a regular file, in words; or NULL. */
static const char *not_a_file(const struct stat *st)
{
	if (S_ISLNK(st->st_mode))
		return "a symbolic link";
	if (S_ISDIR(st->st_mode))
		return "a directory";
	if (S_ISFIFO(st->st_mode))
		return "a FIFO";
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		return "a device";
	if (S_ISSOCK(st->st_mode))
		return "a socket";
	return S_ISREG(st->st_mode) ? NULL : "not a regular file";
}

bool vs_output_check(const char *path, char *err, size_t errlen)
{
	const char *what;
	struct stat st;

	if (!strcmp(path, "-"))
		return true;
	if (lstat(path, &st))	/* creating it will say why, if it fails */
		return true;
	what = not_a_file(&st);
	if (!what)
		return true;
	if (S_ISLNK(st.st_mode))
		snprintf(err, errlen, "'%s' is a symbolic link: refused, "
			 "links are not followed (name the file itself)", path);
	else
		snprintf(err, errlen, "'%s' is %s: refused, only a file is "
			 "written (- is the standard output)", path, what);
	return false;
}

void vs_output_option(const char *name, const char *path)
{
	char err[512];

	if (path && !vs_output_check(path, err, sizeof(err)))
		option_error(name, "%s", err);
}

int vs_output_writable(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd >= 0) {
		close(fd);
		return unlink(path);
	}
	if (errno != EEXIST)
		return -1;
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* errno for what sits at @path, 0 when nothing or a regular file does. */
static int refusal(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : errno;
	if (S_ISLNK(st.st_mode))
		return ELOOP;
	if (S_ISDIR(st.st_mode))
		return EISDIR;
	if (!S_ISREG(st.st_mode))
		return EEXIST;
	return 0;
}

int vs_output_create(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
	char *tmp;
	int fd, err;

	if (!strcmp(path, "-"))
		return fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
	err = refusal(path);
	if (err) {
		errno = err;
		return -1;
	}
	/* DIR/.NAME.XXXXXX: beside it, so the rename stays in one file system */
	tmp = malloc(strlen(path) + 9);
	if (!tmp)
		return -1;
	sprintf(tmp, "%.*s.%s.XXXXXX", (int)dir_len, path, path + dir_len);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	if (rename(tmp, path)) {
		err = errno;
		unlink(tmp);
		close(fd);
		free(tmp);
		errno = err;
		return -1;
	}
	free(tmp);
	return fd;
}
