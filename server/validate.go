package server

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// schema is the subset of JSON Schema gno's input schemas use. Arguments
// are checked against it before a handler runs, so a bad argument gets a
// tool error naming the field and the rule, and handlers can trust types.
type schema struct {
	Type       string             `json:"type"`
	Properties map[string]*schema `json:"properties"`
	Required   []string           `json:"required"`
	Items      *schema            `json:"items"`
	Enum       []string           `json:"enum"`
	Minimum    *float64           `json:"minimum"`
	Maximum    *float64           `json:"maximum"`
}

func parseSchema(raw string) *schema {
	var s schema
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		panic(fmt.Sprintf("input schema: %v", err)) // a bug in schemas.go
	}
	return &s
}

// validateArgs checks raw tool arguments (nil, or the decoded JSON object)
// against s and returns them as a map. Unknown members are ignored, as the
// schemas do not forbid them.
func validateArgs(s *schema, raw any) (map[string]any, error) {
	if raw == nil {
		raw = map[string]any{}
	}
	args, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("arguments must be a JSON object, not %s", jsonType(raw))
	}
	for _, r := range s.Required {
		if v, ok := args[r]; !ok || v == nil {
			return nil, fmt.Errorf("missing required argument %q", r)
		}
	}
	for name, v := range args {
		p := s.Properties[name]
		if p == nil || v == nil {
			continue
		}
		if err := p.check(name, v); err != nil {
			return nil, err
		}
	}
	return args, nil
}

func (s *schema) check(name string, v any) error {
	switch s.Type {
	case "string":
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("argument %q must be a string, not %s", name, jsonType(v))
		}
		if len(s.Enum) > 0 && !contains(s.Enum, str) {
			return fmt.Errorf("argument %q must be one of %s, not %q", name, strings.Join(s.Enum, ", "), str)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("argument %q must be a boolean, not %s", name, jsonType(v))
		}
	case "integer", "number":
		f, ok := v.(float64)
		if !ok {
			return fmt.Errorf("argument %q must be %s, not %s", name, article(s.Type), jsonType(v))
		}
		if s.Type == "integer" && (f != math.Trunc(f) || math.IsInf(f, 0)) {
			return fmt.Errorf("argument %q must be an integer, not %v", name, f)
		}
		if s.Minimum != nil && f < *s.Minimum {
			return fmt.Errorf("argument %q must be at least %v, not %v", name, *s.Minimum, f)
		}
		if s.Maximum != nil && f > *s.Maximum {
			return fmt.Errorf("argument %q must be at most %v, not %v", name, *s.Maximum, f)
		}
	case "array":
		items, ok := v.([]any)
		if !ok {
			return fmt.Errorf("argument %q must be an array, not %s", name, jsonType(v))
		}
		if s.Items != nil {
			for i, it := range items {
				if err := s.Items.check(fmt.Sprintf("%s[%d]", name, i), it); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func article(t string) string {
	if t == "integer" {
		return "an integer"
	}
	return "a number"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, json.Number:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// args reads validated arguments.
type args map[string]any

func (a args) str(name string) string {
	s, _ := a[name].(string)
	return s
}

func (a args) int(name string, def int) int {
	if f, ok := a[name].(float64); ok {
		return int(f)
	}
	return def
}

func (a args) num(name string, def float64) float64 {
	if f, ok := a[name].(float64); ok {
		return f
	}
	return def
}

func (a args) bool(name string, def bool) bool {
	if b, ok := a[name].(bool); ok {
		return b
	}
	return def
}

func (a args) has(name string) bool {
	v, ok := a[name]
	return ok && v != nil
}

func (a args) strs(name string) []string {
	items, _ := a[name].([]any)
	out := make([]string, 0, len(items))
	for _, it := range items {
		if s, ok := it.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
