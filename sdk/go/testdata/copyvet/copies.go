// Package copyvet copies every frugal handle by value: `go vet` must
// report each copy (handle_copy_test.go runs it). Never built otherwise.
package copyvet

import frugal "frugal.invalid/sdk/go"

func copies(ckpt *frugal.CkptEngine, ctx *frugal.Context, ct *frugal.CTensor, ls *frugal.LossScaler,
	mt *frugal.ManagedTensor, opts *frugal.Options, ps *frugal.PackStream, pk *frugal.Packer,
	pp *frugal.PackPlan, q *frugal.Quantizer, r *frugal.Router, s *frugal.Schedule,
	sch *frugal.Scheduler, st *frugal.Store, cm *frugal.Comm) []any {
	a, b, c, d, e, f, g := *ckpt, *ctx, *ct, *ls, *mt, *opts, *ps
	h, i, j, k, l, m, n, o := *pk, *pp, *q, *r, *s, *sch, *st, *cm
	return []any{&a, &b, &c, &d, &e, &f, &g, &h, &i, &j, &k, &l, &m, &n, &o}
}
