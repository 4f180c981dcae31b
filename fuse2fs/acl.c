/*
 * fuse2fs/acl.c --- POSIX ACLs in their xattr form (a 4-byte version 2
 * header, then entries of tag le16, permissions le16, id le32), as the
 * kernel computes with them: the mode an access ACL gives, the ACL a new
 * inode inherits from its parent's default ACL (posix_acl_create), the
 * ACL after a chmod (posix_acl_chmod).
 */
#include <errno.h>

#include "server.h"

enum { ACL_USER_OBJ = 1, ACL_USER = 2, ACL_GROUP_OBJ = 4, ACL_GROUP = 8,
       ACL_MASK = 0x10, ACL_OTHER = 0x20 };

static unsigned int le16(const unsigned char *p)
{
	return p[0] | p[1] << 8;
}

static void set_perm(unsigned char *e, unsigned int perm)
{
	e[2] = perm & 7;
	e[3] = 0;
}

int fs_acl_valid(const unsigned char *v, size_t size)
{
	size_t i;

	if (size < 4 || (size - 4) % 8 || v[0] != 2 || v[1] || v[2] || v[3])
		return 0;
	for (i = 4; i < size; i += 8)
		switch (le16(v + i)) {
		case ACL_USER_OBJ: case ACL_USER: case ACL_GROUP_OBJ:
		case ACL_GROUP: case ACL_MASK: case ACL_OTHER:
			break;
		default:
			return 0;
		}
	return 1;
}

mode_t fs_acl_mode(const unsigned char *v, size_t size, int *equiv)
{
	size_t i;
	int group = 0, mask = -1;
	mode_t perm = 0;

	*equiv = 1;
	for (i = 4; i < size; i += 8) {
		unsigned int bits = v[i + 2] & 7;

		switch (le16(v + i)) {
		case ACL_USER_OBJ:	perm |= bits << 6; break;
		case ACL_GROUP_OBJ:	group = (int)bits; break;
		case ACL_MASK:		mask = (int)bits; *equiv = 0; break;
		case ACL_OTHER:		perm |= bits; break;
		default:		*equiv = 0; break;
		}
	}
	return perm | (mode_t)(mask >= 0 ? mask : group) << 3;
}

int fs_acl_create_masq(unsigned char *v, size_t size, mode_t *mode)
{
	unsigned char *group = NULL, *mask = NULL;
	mode_t m = *mode;
	int not_equiv = 0;
	size_t i;

	for (i = 4; i < size; i += 8) {
		unsigned char *e = v + i;
		unsigned int perm = e[2] & 7;

		switch (le16(e)) {
		case ACL_USER_OBJ:
			perm &= (m >> 6) & 7;
			set_perm(e, perm);
			m &= (perm << 6) | ~(mode_t)0700;
			break;
		case ACL_USER: case ACL_GROUP:
			not_equiv = 1;
			break;
		case ACL_GROUP_OBJ:
			group = e;
			break;
		case ACL_OTHER:
			perm &= m & 7;
			set_perm(e, perm);
			m &= perm | ~(mode_t)07;
			break;
		case ACL_MASK:
			mask = e;
			not_equiv = 1;
			break;
		}
	}
	if (mask || group) {
		unsigned char *e = mask ? mask : group;
		unsigned int perm = e[2] & 7 & (m >> 3);

		set_perm(e, perm);
		m &= (perm << 3) | ~(mode_t)070;
	}
	*mode = (*mode & ~(mode_t)0777) | (m & 0777);
	return not_equiv;
}

void fs_acl_apply_mode(unsigned char *v, size_t size, mode_t mode)
{
	unsigned char *group = NULL, *mask = NULL;
	size_t i;

	for (i = 4; i < size; i += 8) {
		unsigned char *e = v + i;

		switch (le16(e)) {
		case ACL_USER_OBJ:	set_perm(e, mode >> 6); break;
		case ACL_GROUP_OBJ:	group = e; break;
		case ACL_MASK:		mask = e; break;
		case ACL_OTHER:		set_perm(e, mode); break;
		}
	}
	if (mask)
		set_perm(mask, mode >> 3);
	else if (group)
		set_perm(group, mode >> 3);
}
