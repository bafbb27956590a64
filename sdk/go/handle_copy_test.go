package frugal

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// copyByValue returns a copy of *p made the way `b := *a` makes one.
// Through reflect, so that go vet does not flag this file.
func copyByValue[T any](p *T) *T {
	v := reflect.ValueOf(p).Elem()
	c := reflect.New(v.Type())
	c.Elem().Set(v)
	return c.Interface().(*T)
}

// handleCase is one handle type: a new one (as io.Closer), its copy by
// value, whether the original's C pointer is gone, and a call on the
// original that must report it closed.
type handleCase struct {
	name string
	make func(t *testing.T) (original, copied io.Closer, closed func() bool, use func() error)
}

func handleCases() []handleCase {
	pair := func(original, copied io.Closer, closed func() bool, use func() error) (io.Closer, io.Closer,
		func() bool, func() error) {
		return original, copied, closed, use
	}
	return []handleCase{
		{"Context", func(t *testing.T) (io.Closer, io.Closer, func() bool, func() error) {
			c, err := NewContext()
			must(t, err)
			return pair(c, copyByValue(c), func() bool { return c.ptr == nil },
				func() error { _, err := c.Plugins(); return err })
		}},
		{"Options", func(t *testing.T) (io.Closer, io.Closer, func() bool, func() error) {
			o, err := NewOptions()
			must(t, err)
			return pair(o, copyByValue(o), func() bool { return o.ptr == nil },
				func() error { return o.SetInt("x", 1) })
		}},
		{"Schedule", func(t *testing.T) (io.Closer, io.Closer, func() bool, func() error) {
			s, err := NewSchedule(newTestContext(t), "cosine", cosineOptions(t))
			must(t, err)
			return pair(s, copyByValue(s), func() bool { return s.ptr == nil },
				func() error { _, err := s.LR(1); return err })
		}},
		{"Scheduler", func(t *testing.T) (io.Closer, io.Closer, func() bool, func() error) {
			s, err := NewScheduler(newTestContext(t), SchedulerConfig{Schedule: "cosine", ScheduleOptions: cosineOptions(t)})
			must(t, err)
			return pair(s, copyByValue(s), func() bool { return s.ptr == nil },
				func() error { _, err := s.ExportState(); return err })
		}},
		{"Packer", func(t *testing.T) (io.Closer, io.Closer, func() bool, func() error) {
			p, err := NewPacker(newTestContext(t), "packer_seq", maxLenOptions(t))
			must(t, err)
			return pair(p, copyByValue(p), func() bool { return p.ptr == nil },
				func() error { _, err := p.Pack([]int64{3}); return err })
		}},
		{"PackPlan", func(t *testing.T) (io.Closer, io.Closer, func() bool, func() error) {
			p, err := newTestPacker(t, maxLenOptions(t)).Pack([]int64{3, 5})
			must(t, err)
			return pair(p, copyByValue(p), func() bool { return p.ptr == nil },
				func() error { _, _, err := p.CuSeqlens(0); return err })
		}},
		{"PackStream", func(t *testing.T) (io.Closer, io.Closer, func() bool, func() error) {
			s, err := NewPackStream(newTestPacker(t, maxLenOptions(t)), nil)
			must(t, err)
			return pair(s, copyByValue(s), func() bool { return s.ptr == nil },
				func() error { _, _, err := s.Pending(); return err })
		}},
		{"Quantizer", func(t *testing.T) (io.Closer, io.Closer, func() bool, func() error) {
			q, err := NewQuantizer(newTestContext(t), "quant_fp8", nil)
			must(t, err)
			return pair(q, copyByValue(q), func() bool { return q.ptr == nil },
				func() error { _, err := q.ScaleShape(1, 1); return err })
		}},
		{"Router", func(t *testing.T) (io.Closer, io.Closer, func() bool, func() error) {
			opts := newTestOptions(t)
			must(t, opts.SetInt("experts", 4))
			r, err := NewRouter(newTestContext(t), "topk_softmax", opts)
			must(t, err)
			return pair(r, copyByValue(r), func() bool { return r.ptr == nil },
				func() error { _, err := r.PlanShape(1); return err })
		}},
		{"Store", func(t *testing.T) (io.Closer, io.Closer, func() bool, func() error) {
			opts := newTestOptions(t)
			must(t, opts.SetString("root", t.TempDir()))
			s, err := NewStore(newTestContext(t), "fs", opts)
			must(t, err)
			return pair(s, copyByValue(s), func() bool { return s.ptr == nil },
				func() error { _, err := s.List(""); return err })
		}},
		{"CkptEngine", func(t *testing.T) (io.Closer, io.Closer, func() bool, func() error) {
			e, err := NewCkptEngine(newTestStore(t), nil)
			must(t, err)
			return pair(e, copyByValue(e), func() bool { return e.ptr == nil },
				func() error { _, err := e.List(0); return err })
		}},
		{"LossScaler", func(t *testing.T) (io.Closer, io.Closer, func() bool, func() error) {
			s, err := NewLossScaler(nil)
			must(t, err)
			return pair(s, copyByValue(s), func() bool { return s.ptr == nil },
				func() error { _, err := s.Scale(); return err })
		}},
		{"ManagedTensor", func(t *testing.T) (io.Closer, io.Closer, func() bool, func() error) {
			m, err := NewManagedTensor(DTypeFloat32, 2, 3)
			must(t, err)
			return pair(m, copyByValue(m), func() bool { return m.ptr == nil },
				func() error { _, err := m.Tensor(); return err })
		}},
		{"Comm", func(t *testing.T) (io.Closer, io.Closer, func() bool, func() error) {
			c, err := NewComm(newTestContext(t), "local", nil)
			must(t, err)
			return pair(c, copyByValue(c), func() bool { return c.ptr == nil }, c.Barrier)
		}},
		{"CTensor", func(t *testing.T) (io.Closer, io.Closer, func() bool, func() error) {
			c, err := NewCTensor(DTypeFloat32, 2, 3)
			must(t, err)
			return pair(c, copyByValue(c), func() bool { return c.ptr == nil },
				func() error { _, err := c.IntoManaged(); return err })
		}},
	}
}

func TestAHandleCopiedByValueIsClosedOnceAndItsOriginalSeesIt(t *testing.T) {
	for _, c := range handleCases() {
		t.Run(c.name, func(t *testing.T) {
			original, copied, closed, use := c.make(t)
			// Neither encoding lets the C pointer out of the process.
			if data, err := json.Marshal(original); err != nil || string(data) != "{}" {
				t.Errorf("json.Marshal = %s, %v; want {}", data, err)
			}
			if err := gob.NewEncoder(&bytes.Buffer{}).Encode(original); err == nil {
				t.Errorf("gob encoded the handle")
			}
			if err := copied.Close(); err != nil {
				t.Fatalf("closing the copy: %v", err)
			}
			if !closed() {
				// Closing or using the original now would touch freed
				// memory: leak it instead of crashing the test.
				t.Fatalf("the copy freed the C object but the original still holds its pointer")
			}
			wantError(t, use(), CodeFailedPrecondition, "closed")
			if err := original.Close(); err != nil {
				t.Fatalf("closing the original after its copy: %v", err)
			}
			if err := copied.Close(); err != nil {
				t.Fatalf("closing the copy again: %v", err)
			}
		})
	}
}

func TestGoVetReportsEveryHandleCopiedByValue(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goTool, "vet", "./testdata/copyvet").CombinedOutput()
	if err == nil {
		t.Fatalf("go vet accepted testdata/copyvet, which copies every handle by value:\n%s", out)
	}
	// vet names types by their full import path (the module path).
	pkg := reflect.TypeOf(noCopy{}).PkgPath()
	for _, c := range handleCases() {
		if want := pkg + "." + c.name + " contains " + pkg + ".noCopy"; !strings.Contains(string(out), want) {
			t.Errorf("go vet did not report a copied %s (%q):\n%s", c.name, want, out)
		}
	}
}
