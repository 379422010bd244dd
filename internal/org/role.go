// Package org manages organizations, their members and roles, invitations,
// projects and plans.
package org

import "fmt"

// Role is a member's role; a higher role can do everything a lower one can.
type Role int

// Roles, lowest to highest.
const (
	Viewer Role = iota + 1
	MemberRole
	Admin
	Owner
)

var roleNames = map[Role]string{Viewer: "viewer", MemberRole: "member", Admin: "admin", Owner: "owner"}

// RoleNames lists the role names, lowest first, as the API spells them.
var RoleNames = []string{"viewer", "member", "admin", "owner"}

// String is the role's API name.
func (r Role) String() string { return roleNames[r] }

// ParseRole reads a role name.
func ParseRole(s string) (Role, error) {
	for r, n := range roleNames {
		if n == s {
			return r, nil
		}
	}
	return 0, fmt.Errorf("unknown role %q", s)
}

// AtLeast reports whether r is min or higher.
func (r Role) AtLeast(min Role) bool { return r >= min }
