// Package client is where TestOpenAPIGoClient builds the client oapi-codegen
// generates from the served document; this file keeps the runtime that
// client imports in go.mod.
package client

import (
	_ "github.com/oapi-codegen/runtime"
	_ "github.com/oapi-codegen/runtime/types"
)
