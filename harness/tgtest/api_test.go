package tgtest

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tgtest is the one package a module outside toolgrade can import besides
// the fakes, and it cannot name an internal package's type: so no exported
// identifier may have one in its type, nor in an exported field or method
// of a type of its own, at any depth.
func TestAPIHasNoInternalTypes(t *testing.T) {
	pkg := typeCheck(t)
	seen := map[types.Type]bool{}
	var walk func(where string, ty types.Type)
	walk = func(where string, ty types.Type) {
		if seen[ty] {
			return
		}
		seen[ty] = true
		switch x := ty.(type) {
		case *types.Named:
			p := x.Obj().Pkg()
			if p != nil && strings.Contains(p.Path()+"/", "/internal/") {
				t.Errorf("%s: has type %s, from an internal package", where, x)
				return
			}
			if p != pkg {
				return
			}
			for i := range x.NumMethods() {
				if m := x.Method(i); m.Exported() {
					walk(where+"."+m.Name(), m.Type())
				}
			}
			walk(where, x.Underlying())
		case *types.Struct:
			for i := range x.NumFields() {
				if f := x.Field(i); f.Exported() {
					walk(where+"."+f.Name(), f.Type())
				}
			}
		case *types.Interface:
			for i := range x.NumMethods() {
				walk(where+"."+x.Method(i).Name(), x.Method(i).Type())
			}
		case *types.Signature:
			for _, tu := range []*types.Tuple{x.Params(), x.Results()} {
				for i := range tu.Len() {
					walk(where, tu.At(i).Type())
				}
			}
			for i := range x.TypeParams().Len() {
				walk(where, x.TypeParams().At(i).Constraint())
			}
		case *types.Pointer:
			walk(where, x.Elem())
		case *types.Slice:
			walk(where, x.Elem())
		case *types.Array:
			walk(where, x.Elem())
		case *types.Map:
			walk(where, x.Key())
			walk(where, x.Elem())
		case *types.Chan:
			walk(where, x.Elem())
		case *types.TypeParam:
			walk(where, x.Constraint())
		}
	}
	names := pkg.Scope().Names()
	for _, name := range names {
		if obj := pkg.Scope().Lookup(name); obj.Exported() {
			walk(name, obj.Type())
		}
	}
	for _, want := range []string{"Run", "RunSuite", "Case", "Matcher", "Options"} {
		if !slices.Contains(names, want) {
			t.Errorf("the package has no %s: the check saw %v", want, names)
		}
	}
}

// typeCheck type-checks the package's own files, without its tests.
func typeCheck(t *testing.T) *types.Package {
	t.Helper()
	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, p, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	// The export data of the package's dependencies, as go build made it.
	out, err := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}} {{.Export}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	export := map[string]string{}
	for line := range strings.Lines(string(out)) {
		if path, file, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
			export[path] = file
		}
	}
	lookup := func(path string) (io.ReadCloser, error) { return os.Open(export[path]) }
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", lookup)}
	pkg, err := conf.Check("github.com/toolgrade/toolgrade/harness/tgtest", fset, files, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}
