// openapi_v2_check reads an /openapi/v2 protobuf body on stdin and does with it what kubectl
// does: it unmarshals it into gnostic's openapi_v2.Document and builds kube-openapi's models
// (proto.NewOpenAPIData), the step that fails when one definition is malformed. It prints
// "ok models: N" or the error, and exits non-zero on an error.
//
// With -json FILE it also converts that JSON document as upstream's handler does
// (gnostic's ParseDocument) and requires the two Documents to be equal, except for the text
// of the Any.yaml fields, which are compared as the YAML values they hold (this machine's
// gnostic writes them with go-yaml v2, upstream's with v3). Each served Any.yaml must then
// also be exactly what go-yaml v3 writes for the value (its own output, read and written
// again with styles cleared, as gnostic-models' compiler.Marshal does).
//
// Built in GOPATH mode from Debian's packages (golang-github-googleapis-gnostic-dev,
// golang-k8s-kube-openapi-dev): see test/CMakeLists.txt.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io/ioutil"
	"os"
	"reflect"
	"strings"

	"github.com/golang/protobuf/proto"
	openapi_v2 "github.com/googleapis/gnostic/OpenAPIv2"
	yaml "gopkg.in/yaml.v3"
	kproto "k8s.io/kube-openapi/pkg/util/proto"
)

// canonicalYAML turns a YAML text into a canonical JSON text of the value it holds.
func canonicalYAML(text string) string {
	var v interface{}
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		return "unparsable YAML: " + err.Error() + ": " + text
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "unencodable YAML value: " + err.Error() + ": " + text
	}
	return string(b)
}

// clearStyle and v3Text: gnostic-models' compiler.Marshal.
func clearStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		clearStyle(c)
	}
}

func v3Text(text string) string {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(text), &n); err != nil || len(n.Content) == 0 {
		return "unparsable"
	}
	clearStyle(n.Content[0])
	b, _ := yaml.Marshal(n.Content[0])
	return string(b)
}

// notV3 is the first served Any.yaml that is not go-yaml v3's text.
var notV3 string

// normalize rewrites every Any.Yaml reachable from v to its canonical form; with served, it
// first checks that the text is go-yaml v3's.
func normalize(v reflect.Value, served bool) {
	switch v.Kind() {
	case reflect.Ptr, reflect.Interface:
		if !v.IsNil() {
			if any, ok := v.Interface().(*openapi_v2.Any); ok {
				if served && notV3 == "" && v3Text(any.Yaml) != any.Yaml {
					notV3 = fmt.Sprintf("%q (go-yaml v3: %q)", any.Yaml, v3Text(any.Yaml))
				}
				any.Yaml = canonicalYAML(any.Yaml)
				return
			}
			normalize(v.Elem(), served)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).PkgPath == "" { // exported
				normalize(v.Field(i), served)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			normalize(v.Index(i), served)
		}
	}
}

// firstDifference names the first line where the text forms of a and b differ.
func firstDifference(a, b proto.Message) string {
	la := strings.Split(proto.MarshalTextString(a), "\n")
	lb := strings.Split(proto.MarshalTextString(b), "\n")
	for i := 0; i < len(la) && i < len(lb); i++ {
		if la[i] != lb[i] {
			from := i - 8
			if from < 0 {
				from = 0
			}
			return fmt.Sprintf("line %d:\n  served:   %s\n  expected: %s\ncontext:\n%s", i+1, la[i],
				lb[i], strings.Join(la[from:i+1], "\n"))
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(la), len(lb))
}

func fail(format string, args ...interface{}) {
	fmt.Printf(format+"\n", args...)
	os.Exit(1)
}

func main() {
	jsonFile := flag.String("json", "", "the JSON form of the same document, to compare with")
	flag.Parse()
	body, err := ioutil.ReadAll(os.Stdin)
	if err != nil {
		fail("read: %v", err)
	}
	doc := &openapi_v2.Document{}
	if err := proto.Unmarshal(body, doc); err != nil {
		fail("unmarshal: %v", err)
	}
	if *jsonFile != "" {
		text, err := ioutil.ReadFile(*jsonFile)
		if err != nil {
			fail("read %s: %v", *jsonFile, err)
		}
		expected, err := openapi_v2.ParseDocument(text)
		if err != nil {
			fail("gnostic: %v", err)
		}
		served := proto.Clone(doc)
		normalize(reflect.ValueOf(served), true)
		normalize(reflect.ValueOf(expected), false)
		if notV3 != "" {
			fail("an Any.yaml is not go-yaml v3's text: %s", notV3)
		}
		if !proto.Equal(served, expected) {
			fail("differs from gnostic's conversion of the JSON at %s", firstDifference(served, expected))
		}
	}
	models, err := kproto.NewOpenAPIData(doc)
	if err != nil {
		fail("kubectl parse: %v", err)
	}
	fmt.Println("ok models:", len(models.ListModels()))
}
