package srcpos

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestKindName(t *testing.T) {
	for src, want := range map[string]string{
		`{a: 1}`:               "a mapping",
		`[1]`:                  "a list",
		`x`:                    `the string "x"`,
		`"5"`:                  `the string "5"`,
		`5`:                    "the number 5",
		`2.5`:                  "the number 2.5",
		`true`:                 "true",
		`null`:                 "null",
		`!!binary aGk=`:        `!!binary "aGk="`,
		"!!timestamp 2001-1-1": `!!timestamp "2001-1-1"`,
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := KindName(Deref(doc.Content[0])); got != want {
			t.Errorf("KindName(%q) = %s, want %s", src, got, want)
		}
	}
	if got := KindName(&yaml.Node{}); got != "nothing" {
		t.Errorf("KindName of the zero node = %s, want nothing", got)
	}
}

func TestDerefFollowsAliases(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("a: &x [1, 2]\nb: *x\n"), &doc); err != nil {
		t.Fatal(err)
	}
	m := doc.Content[0]
	alias, target := m.Content[3], m.Content[1]
	if alias.Kind != yaml.AliasNode {
		t.Fatalf("b is %v, want an alias", alias.Kind)
	}
	if got := Deref(alias); got != target {
		t.Errorf("Deref(*x) = %+v, want the list &x", got)
	}
	if got := Deref(target); got != target {
		t.Error("Deref of a node that is no alias is not the node")
	}
	if got := Deref(&yaml.Node{Kind: yaml.AliasNode}); got == nil || got.Kind != yaml.AliasNode {
		t.Errorf("Deref of an alias without its anchor = %+v, want the alias", got)
	}
	if Deref(nil) != nil {
		t.Error("Deref(nil) is not nil")
	}
}
