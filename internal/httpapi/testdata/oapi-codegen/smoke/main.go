// Command smoke drives a real Errata server with the client oapi-codegen
// generated from its document (TestOpenAPIGoClient): sign up, create an
// organization, a project and an API key, ingest a batch and export OTLP
// logs, reading each answer through the generated response types.
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"

	client "errata.test/oapi-codegen"
)

func main() {
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("ok")
}

func bearer(token string) client.RequestEditorFn {
	return func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+token)
		return nil
	}
}

// answer is what every generated response type has.
type answer interface{ StatusCode() int }

// unexpected describes an answer the generated types did not read as wanted.
func unexpected(step string, a answer, body []byte) error {
	return fmt.Errorf("%s: unexpected answer %d: %s", step, a.StatusCode(), body)
}

func run(base, password string) error {
	ctx := context.Background()
	c, err := client.NewClientWithResponses(base)
	if err != nil {
		return err
	}
	up, err := c.SignUpWithResponse(ctx, client.SignUpJSONRequestBody{Email: "gen@example.com", Name: "Gen", Password: password})
	if err != nil {
		return err
	} else if up.JSON200 == nil {
		return unexpected("sign up", up, up.Body)
	}
	user := bearer(up.JSON200.Token)
	org, err := c.CreateOrgWithResponse(ctx, client.CreateOrgJSONRequestBody{Name: "Acme"}, user)
	if err != nil {
		return err
	} else if org.JSON201 == nil {
		return unexpected("create org", org, org.Body)
	}
	prj, err := c.CreateProjectWithResponse(ctx, org.JSON201.Id, client.CreateProjectJSONRequestBody{Name: "web"}, user)
	if err != nil {
		return err
	} else if prj.JSON201 == nil {
		return unexpected("create project", prj, prj.Body)
	}
	key, err := c.CreateKeyWithResponse(ctx, prj.JSON201.Id, client.CreateKeyJSONRequestBody{Name: "ci"}, user)
	if err != nil {
		return err
	} else if key.JSON201 == nil {
		return unexpected("create key", key, key.Body)
	}
	apiKey := bearer(key.JSON201.Key)

	// The batch's events are a plain slice and the level a typed enum.
	level, service := client.IngestEventLevelWarning, "web"
	batch := client.IngestRequest{Service: &service, Events: []client.IngestEvent{{Message: "disk almost full", Level: &level}}}
	in, err := c.IngestWithResponse(ctx, nil, batch, apiKey)
	if err != nil {
		return err
	} else if in.JSON202 == nil || in.JSON202.Accepted != 1 {
		return unexpected("ingest", in, in.Body)
	}
	in, err = c.IngestWithResponse(ctx, nil, client.IngestRequest{Events: []client.IngestEvent{{Message: "no service"}}}, apiKey)
	if err != nil {
		return err
	} else if in.ApplicationproblemJSON422 == nil {
		return unexpected("ingest without a service (want a 422 problem)", in, in.Body)
	}

	// OTLP/JSON: one record kept, one rejected in partialSuccess.
	records := []client.LogRecord{{Body: &map[string]any{"stringValue": "card declined"}}, {}}
	scopes := []client.ScopeLogs{{LogRecords: &records}}
	logs := client.ExportLogsServiceRequest{ResourceLogs: &[]client.ResourceLogs{{ScopeLogs: &scopes}}}
	out, err := c.ExportLogsWithResponse(ctx, nil, logs, apiKey)
	if err != nil {
		return err
	} else if ps := out.JSON200; ps == nil || ps.PartialSuccess == nil || ps.PartialSuccess.RejectedLogRecords == nil || *ps.PartialSuccess.RejectedLogRecords != "1" {
		return unexpected("export logs (want 1 record rejected)", out, out.Body)
	}
	out, err = c.ExportLogsWithResponse(ctx, nil, logs)
	if err != nil {
		return err
	} else if out.JSON401 == nil || out.JSON401.Code != 16 {
		return unexpected("export logs without a key (want 401 UNAUTHENTICATED)", out, out.Body)
	}
	return nil
}
