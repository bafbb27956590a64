package frugal

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// The binding across ranks: internal/commranks checks every collective on
// the "mpi" backend against values each rank computes itself; this test
// builds it and runs it under mpirun at 2 and 3 ranks, where mpirun and
// comm_mpi are there (MPI found at build time).

// mpirunFlags are the flags the build's own mpirun lines pass
// (cmake/FrugalMpiexec.cmake): Open MPI refuses root without
// --allow-run-as-root and more ranks than cores without --oversubscribe;
// other MPIs take neither.
func mpirunFlags(t *testing.T, mpirun string) []string {
	out, err := exec.Command(mpirun, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", mpirun, err, out)
	}
	if strings.Contains(string(out), "Open MPI") || strings.Contains(string(out), "OpenRTE") {
		return []string{"--allow-run-as-root", "--oversubscribe"}
	}
	return nil
}

func TestEveryCollectiveAcrossRanksUnderMpirun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds internal/commranks and runs mpirun")
	}
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		t.Skip("mpirun is not on PATH")
	}
	_, err = newTestContext(t).FindStrategy(KindComm, "mpi")
	var fe *Error
	if errors.As(err, &fe) && fe.Code == CodeNotFound {
		t.Skip("comm_mpi is not built next to libfrugal (CMake found no MPI)")
	}
	must(t, err)
	binary := filepath.Join(t.TempDir(), "commranks")
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if out, err := exec.Command(goTool, "build", "-o", binary, "./internal/commranks").CombinedOutput(); err != nil {
		t.Fatalf("go build ./internal/commranks: %v\n%s", err, out)
	}
	flags := mpirunFlags(t, mpirun)
	for _, ranks := range []int{2, 3} {
		t.Run(fmt.Sprintf("np%d", ranks), func(t *testing.T) {
			// Each rank's collectives time out after 60 s; a hang of the
			// launcher itself ends here.
			ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
			defer cancel()
			args := append(append([]string{}, flags...), "-np", fmt.Sprint(ranks), binary)
			out, err := exec.CommandContext(ctx, mpirun, args...).CombinedOutput()
			if err != nil {
				t.Fatalf("mpirun %s: %v\n%s", strings.Join(args, " "), err, out)
			}
			var got []string
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				if strings.HasPrefix(line, "rank ") {
					got = append(got, line)
				}
			}
			sort.Strings(got)
			var want []string
			for r := 0; r < ranks; r++ {
				want = append(want, fmt.Sprintf("rank %d of %d: ok", r, ranks))
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("mpirun -np %d printed\n%s\nwant one line per rank:\n%s", ranks, out, strings.Join(want, "\n"))
			}
		})
	}
}
