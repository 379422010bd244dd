package org

// Plan names.
const (
	PlanFree = "free"
	PlanTeam = "team"
)

// Limits are what a plan allows, as the organization object shows them.
type Limits struct {
	ChannelsPerProject int      `json:"channels_per_project" doc:"Channels a project may have"`
	ChannelTypes       []string `json:"channel_types" nullable:"false" doc:"Channel types the plan allows"`
}

// LimitsOf returns the limits of a plan (CONTRACT section 2).
func LimitsOf(plan string) Limits {
	if plan == PlanFree {
		return Limits{ChannelsPerProject: 3, ChannelTypes: []string{"email"}}
	}
	return Limits{ChannelsPerProject: 25, ChannelTypes: []string{"email", "webhook"}}
}

// ValidPlan reports whether p names a plan.
func ValidPlan(p string) bool { return p == PlanFree || p == PlanTeam }
