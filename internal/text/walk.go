package text

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// SecretTag is the struct tag (`text:"secret"`) of a field Walk leaves
// alone: a password, which is only ever hashed, and whose owner may have
// chosen any character (refusing one at sign-in would lock them out).
const SecretTag = "secret"

// maxDepth bounds the nesting Walk follows; decoded JSON bodies are bounded
// by their size long before this.
const maxDepth = 64

// Walk checks every string v holds, as a request decoder (huma, encoding/json)
// filled it, and returns the problem of the first that breaks the rule, named
// by its path: fields are named by their path, query, header or json tag
// (or their Go name), a field named Body and embedded structs add no name,
// list items add [i] and map entries .key ("filters.environments[0]",
// "attributes.region"). Strings inside interfaces (decoded JSON of unknown
// shape) and map keys are checked too; byte slices (raw JSON) are not.
// Fields tagged text:"secret" are skipped. v is usually a pointer to the
// decoded input; every future field of an input is covered without a
// line of its own.
func Walk(v any) error {
	return walk(reflect.ValueOf(v), "", 0)
}

func walk(v reflect.Value, path string, depth int) error {
	if depth > maxDepth || !v.IsValid() {
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return walk(v.Elem(), path, depth+1)
	case reflect.String:
		return Check(path, v.String())
	case reflect.Struct:
		return walkStruct(v, path, depth)
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil
		}
		for i := range v.Len() {
			if err := walk(v.Index(i), path+"["+strconv.Itoa(i)+"]", depth+1); err != nil {
				return err
			}
		}
	case reflect.Map:
		return walkMap(v, path, depth)
	}
	return nil
}

func walkStruct(v reflect.Value, path string, depth int) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if (!f.IsExported() && !f.Anonymous) || f.Tag.Get("text") == SecretTag {
			continue
		}
		name, ok := fieldName(f)
		if !ok {
			continue
		}
		if err := walk(v.Field(i), join(path, name), depth+1); err != nil {
			return err
		}
	}
	return nil
}

// walkMap checks a map's keys and values in the order of their keys, so
// that the field named is always the same one.
func walkMap(v reflect.Value, path string, depth int) error {
	keys := v.MapKeys()
	if v.Type().Key().Kind() == reflect.String {
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
	}
	for _, k := range keys {
		if k.Kind() == reflect.String {
			if err := Check(path, k.String()); err != nil {
				return err
			}
			if err := walk(v.MapIndex(k), join(path, k.String()), depth+1); err != nil {
				return err
			}
			continue
		}
		if err := walk(v.MapIndex(k), path, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// fieldName is the name a field has in a request; ok is false for fields a
// request cannot set (json:"-").
func fieldName(f reflect.StructField) (name string, ok bool) {
	for _, tag := range []string{"path", "query", "header", "cookie", "form", "json"} {
		if v, has := f.Tag.Lookup(tag); has {
			v, _, _ = strings.Cut(v, ",")
			if v == "-" {
				return "", false
			}
			if v != "" {
				return v, true
			}
		}
	}
	if f.Anonymous || f.Name == "Body" {
		return "", true
	}
	return f.Name, true
}

func join(path, name string) string {
	switch {
	case name == "":
		return path
	case path == "":
		return name
	}
	return path + "." + name
}
