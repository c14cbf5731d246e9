package srcpos

import (
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

// UnknownFields checks the keys of every mapping in the YAML tree n against
// the yaml-tagged fields of the struct type that v (a pointer) decodes it
// into, and reports each key no field takes as `unknown field "k"` with the
// DidYouMean hint. yaml.v3's own KnownFields check says only "field k not
// found in type T", without a column or a suggestion. Values of types with
// their own UnmarshalYAML are not looked into.
func UnknownFields(file string, n *yaml.Node, v any) List {
	var l List
	checkFields(file, n, reflect.TypeOf(v), "", &l, map[*yaml.Node]bool{})
	return l
}

func checkFields(file string, n *yaml.Node, t reflect.Type, path string, l *List, seen map[*yaml.Node]bool) {
	if n == nil || seen[n] {
		return
	}
	seen[n] = true
	for n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		if t.Implements(unmarshalerType) {
			return
		}
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return // a type error, which decoding reports
		}
		fields, names := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			ft, ok := fields[k.Value]
			if !ok {
				if k.ShortTag() != "!!merge" {
					l.Add(Node(file, k), path, "%s", Unknown("field", k.Value, names))
				}
				continue
			}
			checkFields(file, val, ft, join(path, k.Value), l, seen)
		}
	case reflect.Slice, reflect.Array:
		if n.Kind == yaml.SequenceNode {
			for i, c := range n.Content {
				checkFields(file, c, t.Elem(), path+"["+strconv.Itoa(i)+"]", l, seen)
			}
		}
	case reflect.Map:
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				checkFields(file, n.Content[i+1], t.Elem(), join(path, n.Content[i].Value), l, seen)
			}
		}
	}
}

// yamlFields returns a struct's YAML keys with their types, and the keys in
// field order for messages.
func yamlFields(t reflect.Type) (map[string]reflect.Type, []string) {
	fields := map[string]reflect.Type{}
	var names []string
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			inner, innerNames := yamlFields(f.Type)
			for k, v := range inner {
				fields[k] = v
			}
			names = append(names, innerNames...)
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		fields[name] = f.Type
		names = append(names, name)
	}
	return fields, names
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
