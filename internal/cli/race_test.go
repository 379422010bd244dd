//go:build race

package cli_test

func init() { raceBuild = true }
