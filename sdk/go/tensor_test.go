package frugal

import "testing"

func TestTensorShapeMustMatchItsSlice(t *testing.T) {
	if err := Float32s(make([]float32, 6), 2, 3).check("x"); err != nil {
		t.Fatalf("2x3 over 6 floats: %v", err)
	}
	wantError(t, Float32s(make([]float32, 5), 2, 3).check("x"), CodeInvalidArgument, "x:", "24 bytes", "holds 20")
	wantError(t, Float32s(nil, -1).check("y"), CodeInvalidArgument, "y:", "negative")
	wantError(t, Bytes(DType(99), []byte{1}).check("z"), CodeInvalidArgument, "unknown dtype 99")
	if got := Int64s([]int64{1, 2, 3}).Shape(); len(got) != 1 || got[0] != 3 {
		t.Errorf("default shape = %v, want [3]", got)
	}
}

func TestTensorAccessorsShareMemoryAndCheckDType(t *testing.T) {
	data := []float32{1, 2, 3}
	view := Float32s(data).Float32s()
	view[1] = 20
	if data[1] != 20 {
		t.Fatalf("accessor copied: data[1] = %v, want 20", data[1])
	}
	defer func() {
		if recover() == nil {
			t.Fatalf("reading float32 data as int64 did not panic")
		}
	}()
	Float32s(data).Int64s()
}

func TestDTypeNamesAndBitsComeFromLibfrugal(t *testing.T) {
	cases := map[DType]struct {
		name string
		bits int
	}{DTypeFloat32: {"float32", 32}, DTypeBFloat16: {"bfloat16", 16}, DTypeFloat8E4M3FN: {"float8_e4m3fn", 8},
		DTypeInt64: {"int64", 64}, DType(99): {"unknown", 0}}
	for d, want := range cases {
		if d.String() != want.name || d.Bits() != want.bits {
			t.Errorf("dtype %d: %q/%d, want %q/%d", int32(d), d.String(), d.Bits(), want.name, want.bits)
		}
	}
}

func TestCTensorIsZeroedCMemory(t *testing.T) {
	ct, err := NewCTensor(DTypeInt64, 2, 3)
	must(t, err)
	defer ct.Close()
	vals := ct.Tensor().Int64s()
	if len(vals) != 6 {
		t.Fatalf("len = %d, want 6", len(vals))
	}
	for i, v := range vals {
		if v != 0 {
			t.Fatalf("element %d = %d, want 0", i, v)
		}
		vals[i] = int64(i * i)
	}
	if again := ct.Tensor().Int64s(); again[5] != 25 {
		t.Errorf("write through the slice not seen: %d", again[5])
	}
	if sh := ct.Tensor().Shape(); len(sh) != 2 || sh[0] != 2 || sh[1] != 3 {
		t.Errorf("shape %v, want [2 3]", sh)
	}
	must(t, ct.Close())
	must(t, ct.Close())
	if ct.Tensor().given() {
		t.Errorf("Tensor() after Close is not the zero Tensor")
	}
}

func TestCTensorBadShapeIsInvalidArgument(t *testing.T) {
	_, err := NewCTensor(DTypeFloat32, 4, -2)
	wantError(t, err, CodeInvalidArgument)
	_, err = NewCTensor(DType(77), 4)
	wantError(t, err, CodeInvalidArgument)
}
