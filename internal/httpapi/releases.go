package httpapi

import (
	"context"

	"github.com/errata-dev/errata/internal/store"
)

// ReleaseView is a release of a project with what its events did.
type ReleaseView struct {
	ID            string       `json:"id" doc:"rel_ identifier"`
	ProjectID     string       `json:"project_id"`
	Version       string       `json:"version"`
	CreatedAt     Timestamp    `json:"created_at" doc:"When sentry-cli made it, or its first event arrived"`
	DateReleased  *Timestamp   `json:"date_released" nullable:"true" doc:"When it was finalized (sentry-cli releases finalize); null before"`
	FirstSeen     *Timestamp   `json:"first_seen" nullable:"true" doc:"Receipt of the first event, of any level, that named it; null if none yet"`
	LastSeen      *Timestamp   `json:"last_seen" nullable:"true" doc:"Receipt of its latest error event, or its first event while it has had no error event; null if none yet"`
	EventCount    int64        `json:"event_count" minimum:"0" doc:"Error events of this release"`
	NewGroups     int64        `json:"new_groups" minimum:"0" doc:"Error groups its events opened"`
	ArtifactCount int64        `json:"artifact_count" minimum:"0" doc:"Files (minified sources and source maps) uploaded for it"`
	Deploys       []DeployView `json:"deploys" doc:"Its deploys, oldest first (at most 100)"`
}

// DeployView is a deploy of a release.
type DeployView struct {
	Environment string     `json:"environment"`
	Name        *string    `json:"name" nullable:"true" doc:"The deploy's name; null when it was given none"`
	StartedAt   *Timestamp `json:"started_at" nullable:"true"`
	FinishedAt  Timestamp  `json:"finished_at"`
}

func (s *Server) releaseView(ctx context.Context, r store.Release) (ReleaseView, error) {
	ds, err := s.db.Read().DeploysOf(ctx, r.ID)
	if err != nil {
		return ReleaseView{}, err
	}
	v := ReleaseView{ID: r.ID, ProjectID: r.ProjectID, Version: r.Version, CreatedAt: ts(r.CreatedAt), DateReleased: tsPtr(r.DateReleased),
		FirstSeen: tsPtr(r.FirstSeen), LastSeen: tsPtr(r.LastSeen), EventCount: r.EventCount, NewGroups: r.NewGroups,
		ArtifactCount: r.ArtifactCount, Deploys: make([]DeployView, 0, len(ds))}
	if v.LastSeen == nil {
		v.LastSeen = v.FirstSeen // named only by events below error so far
	}
	for _, d := range ds {
		var name *string
		if d.Name != "" {
			name = &d.Name
		}
		v.Deploys = append(v.Deploys, DeployView{Environment: d.Environment, Name: name, StartedAt: tsPtr(d.StartedAt), FinishedAt: ts(d.FinishedAt)})
	}
	return v, nil
}

func (s *Server) listReleases(ctx context.Context, in *struct {
	ProjectPath
	ListParams
}) (*struct{ Body *Page[ReleaseView] }, error) {
	var viewErr error
	page, err := list(s, "releases:"+in.ProjectID, in.ListParams, func(before string, limit int) ([]store.Release, error) {
		return s.db.Read().ListReleases(ctx, in.ProjectID, before, limit)
	}, func(r store.Release) string { return r.ID }, func(r store.Release) ReleaseView {
		v, err := s.releaseView(ctx, r)
		if err != nil {
			viewErr = err
		}
		return v
	})
	if err == nil {
		err = viewErr
	}
	return &struct{ Body *Page[ReleaseView] }{page}, err
}

func (s *Server) getRelease(ctx context.Context, in *struct {
	ReleaseID string `path:"release_id" doc:"rel_ identifier"`
}) (*struct{ Body ReleaseView }, error) {
	r, err := s.db.Read().ReleaseByID(ctx, in.ReleaseID)
	if err != nil {
		return nil, err
	}
	v, err := s.releaseView(ctx, r)
	return &struct{ Body ReleaseView }{v}, err
}
