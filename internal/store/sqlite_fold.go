package store

import (
	"database/sql/driver"
	"strings"

	"modernc.org/sqlite"
)

// foldFunc is the SQL function, on SQLite, that lower-cases text beyond
// ASCII (SQLite's own lower() and LIKE know ASCII letters only): search's
// free words on a group's events and its words of one or two characters
// compare through it, as PostgreSQL's ILIKE compares.
const foldFunc = "errata_lower"

func init() {
	err := sqlite.RegisterDeterministicScalarFunction(foldFunc, 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case string:
			return strings.ToLower(v), nil
		case []byte:
			return strings.ToLower(string(v)), nil
		default:
			return v, nil
		}
	})
	if err != nil {
		panic("store: registering " + foldFunc + ": " + err.Error())
	}
}

// foldContains is the condition that text column col contains w, ignoring
// case beyond ASCII, and its argument.
func (sqliteDriver) foldContains(col, w string) (string, any) {
	return "instr(" + foldFunc + "(" + col + "), ?) > 0", strings.ToLower(w)
}
