// Command errata is the Errata server and its administration commands.
package main

import "github.com/errata-dev/errata/internal/cli"

func main() { cli.Main() }
