// Command smd-apply-bench is the Go side of bench/apply.bench.ts: it times
// sigs.k8s.io/structured-merge-diff's merge.Updater.Apply on the object of
// the shared baseline's ssa-bench (a Deployment of 50 containers x 20 env
// vars, generated the same way), in batches the bench asks for on stdin, so
// that the Go and kubesim sides alternate rounds in one run.
//
// Protocol: one request per line, `<scenario> <n>`, answered by one JSON
// line {"scenario","n","wallNs","cpuNs"}. Scenarios (as in ssa-bench):
//
//	force   alice and bob in turn apply the object with every env value
//	        new (a fresh tag per apply), force=true: 1,000 values change
//	        owner on every apply.
//	shared  both apply the identical object: shared ownership, no change.
//
// Each batch times typed conversion of the applied object
// (ParseableType.FromUnstructured, ssa-bench's "apply+parse") and
// Updater.Apply, on inputs built before the clock starts; the live object
// and managers carry over from batch to batch. cpuNs is the process's user
// plus system time over the batch (getrusage), garbage collector threads
// included, as the kubesim side's process.cpuUsage() is.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io/ioutil"
	"os"
	"runtime"
	"syscall"
	"time"

	"sigs.k8s.io/structured-merge-diff/v4/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v4/merge"
	"sigs.k8s.io/structured-merge-diff/v4/typed"

	"ssa-oracle/oracle"
)

// deployment is ssa-bench's object generator.
func deployment(containers, envs int, tag string) map[string]interface{} {
	cs := make([]interface{}, 0, containers)
	for c := 0; c < containers; c++ {
		env := make([]interface{}, 0, envs)
		for e := 0; e < envs; e++ {
			env = append(env, map[string]interface{}{
				"name":  fmt.Sprintf("ENV_%02d", e),
				"value": fmt.Sprintf("value-%d-%d-%s", c, e, tag),
			})
		}
		cs = append(cs, map[string]interface{}{
			"name":  fmt.Sprintf("c%02d", c),
			"image": fmt.Sprintf("registry.example/app-%02d:1.0", c),
			"args":  []interface{}{"--port", fmt.Sprint(8000 + c)},
			"env":   env,
			"ports": []interface{}{map[string]interface{}{
				"containerPort": int64(8000 + c), "protocol": "TCP", "name": fmt.Sprintf("p%02d", c)}},
			"resources": map[string]interface{}{
				"requests": map[string]interface{}{"cpu": "100m", "memory": "64Mi"}},
		})
	}
	return map[string]interface{}{
		"apiVersion": "apps/v1",
		"kind":       "Deployment",
		"metadata": map[string]interface{}{
			"name": "big", "namespace": "default",
			"labels": map[string]interface{}{"app": "big"},
		},
		"spec": map[string]interface{}{
			"replicas": int64(3),
			"selector": map[string]interface{}{"matchLabels": map[string]interface{}{"app": "big"}},
			"template": map[string]interface{}{
				"metadata": map[string]interface{}{"labels": map[string]interface{}{"app": "big"}},
				"spec":     map[string]interface{}{"containers": cs},
			},
		},
	}
}

type identity struct{}

func (identity) Convert(v *typed.TypedValue, _ fieldpath.APIVersion) (*typed.TypedValue, error) {
	return v, nil
}
func (identity) IsMissingVersionError(error) bool { return false }

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "smd-apply-bench:", err)
		os.Exit(1)
	}
}

func cpuNow() time.Duration {
	var ru syscall.Rusage
	must(syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type state struct {
	live     *typed.TypedValue
	managers fieldpath.ManagedFields
	applies  int
}

func main() {
	schemaPath := flag.String("schema", "", "SMD schema (JSON/YAML)")
	typeName := flag.String("type", "io.k8s.api.apps.v1.Deployment", "type name")
	containers := flag.Int("containers", 50, "containers")
	envs := flag.Int("envs", 20, "env vars per container")
	flag.Parse()

	raw, err := ioutil.ReadFile(*schemaPath)
	must(err)
	b, _ := json.Marshal(string(raw))
	pt, err := oracle.ParseType(b, *typeName)
	must(err)

	tv, err := pt.FromUnstructured(deployment(*containers, *envs, "x"))
	must(err)
	fs, err := tv.ToFieldSet()
	must(err)
	paths := 0
	fs.Iterate(func(fieldpath.Path) { paths++ })
	js, _ := json.Marshal(deployment(*containers, *envs, "x"))
	out := json.NewEncoder(os.Stdout)
	must(out.Encode(map[string]interface{}{
		"go": runtime.Version(), "gomaxprocs": runtime.GOMAXPROCS(0), "bytes": len(js), "paths": paths,
	}))

	upd := &merge.Updater{Converter: identity{}}
	names := []string{"alice", "bob"}
	states := map[string]*state{}
	tag := 0
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var scenario string
		var n int
		if _, err := fmt.Sscanf(in.Text(), "%s %d", &scenario, &n); err != nil || (scenario != "force" && scenario != "shared") {
			must(fmt.Errorf("bad request %q", in.Text()))
		}
		st := states[scenario]
		if st == nil {
			live, err := pt.FromUnstructured(map[string]interface{}{})
			must(err)
			st = &state{live: live, managers: fieldpath.ManagedFields{}}
			states[scenario] = st
		}
		objs := make([]map[string]interface{}, n)
		shared := deployment(*containers, *envs, "x")
		for i := range objs {
			if scenario == "shared" {
				objs[i] = shared
			} else {
				tag++
				objs[i] = deployment(*containers, *envs, fmt.Sprint(tag))
			}
		}
		force := scenario == "force"
		runtime.GC()
		cpu0 := cpuNow()
		start := time.Now()
		for _, obj := range objs {
			tv, err := pt.FromUnstructured(obj)
			must(err)
			newObj, newManagers, err := upd.Apply(st.live, tv, "apps/v1", st.managers, names[st.applies%2], force)
			must(err)
			if newObj != nil {
				st.live = newObj
			}
			st.managers = newManagers
			st.applies++
		}
		wall := time.Since(start)
		cpu := cpuNow() - cpu0
		must(out.Encode(map[string]interface{}{"scenario": scenario, "n": n, "wallNs": wall.Nanoseconds(), "cpuNs": cpu.Nanoseconds()}))
	}
	must(in.Err())
}
