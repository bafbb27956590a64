package frugal

import "testing"

func TestSettersAcceptEveryType(t *testing.T) {
	opts := newTestOptions(t)
	must(t, opts.SetInt("i", -7))
	must(t, opts.SetDouble("f", 2.5))
	must(t, opts.SetBool("b", true))
	must(t, opts.SetString("s", "text with spaces"))
}

func TestBadOptionNameIsInvalidArgument(t *testing.T) {
	opts := newTestOptions(t)
	wantError(t, opts.SetInt("bad name!", 1), CodeInvalidArgument, "bad name!")
}

func TestGettersReadBackTypedValuesAndDefaults(t *testing.T) {
	opts := newTestOptions(t)
	must(t, opts.SetInt("i", -7))
	must(t, opts.SetDouble("f", 2.5))
	must(t, opts.SetBool("b", true))
	must(t, opts.SetString("s", "text with spaces"))
	if v, err := opts.GetInt("i", 0); err != nil || v != -7 {
		t.Errorf("GetInt(i) = %d, %v", v, err)
	}
	if v, err := opts.GetDouble("i", 0); err != nil || v != -7 { // an int reads as a float
		t.Errorf("GetDouble(i) = %v, %v", v, err)
	}
	if v, err := opts.GetDouble("f", 0); err != nil || v != 2.5 {
		t.Errorf("GetDouble(f) = %v, %v", v, err)
	}
	if v, err := opts.GetBool("b", false); err != nil || !v {
		t.Errorf("GetBool(b) = %v, %v", v, err)
	}
	if v, err := opts.GetString("s", ""); err != nil || v != "text with spaces" {
		t.Errorf("GetString(s) = %q, %v", v, err)
	}
	// Absent names give the defaults.
	if v, err := opts.GetInt("none", 99); err != nil || v != 99 {
		t.Errorf("GetInt default = %d, %v", v, err)
	}
	if v, err := opts.GetBool("none", true); err != nil || !v {
		t.Errorf("GetBool default = %v, %v", v, err)
	}
	if v, err := opts.GetString("none", "dflt"); err != nil || v != "dflt" {
		t.Errorf("GetString default = %q, %v", v, err)
	}
	// Wrong types name the option and both types.
	_, err := opts.GetInt("s", 0)
	wantError(t, err, CodeInvalidArgument, "'s'")
	_, err = opts.GetBool("f", false)
	wantError(t, err, CodeInvalidArgument, "f")
	_, err = opts.GetString("i", "")
	wantError(t, err, CodeInvalidArgument, "i")

	if opts.Type("i") != OptionInt || opts.Type("f") != OptionDouble || opts.Type("b") != OptionBool ||
		opts.Type("s") != OptionString || opts.Type("none") != OptionAbsent {
		t.Errorf("types %v %v %v %v %v", opts.Type("i"), opts.Type("f"), opts.Type("b"), opts.Type("s"), opts.Type("none"))
	}
	if opts.Count() != 4 {
		t.Fatalf("Count() = %d, want 4", opts.Count())
	}
	must(t, opts.SetString("i", "now a string")) // keeps its position
	wantNames := []string{"i", "f", "b", "s"}
	wantTypes := []OptionType{OptionString, OptionDouble, OptionBool, OptionString}
	for k := range wantNames {
		name, typ, err := opts.Entry(k)
		must(t, err)
		if name != wantNames[k] || typ != wantTypes[k] {
			t.Errorf("Entry(%d) = %q %v, want %q %v", k, name, typ, wantNames[k], wantTypes[k])
		}
	}
	_, _, err = opts.Entry(4)
	wantError(t, err, CodeOutOfRange)
}

func TestSetParsedInfersTheType(t *testing.T) {
	opts := newTestOptions(t)
	cases := []struct {
		text string
		typ  OptionType
	}{{"true", OptionBool}, {"42", OptionInt}, {"1e3", OptionDouble}, {"nan", OptionDouble},
		{"99999999999999999999", OptionDouble}, {"+5", OptionString}, {" 7", OptionString}, {"fast", OptionString}}
	for i, c := range cases {
		name := string(rune('a' + i))
		must(t, opts.SetParsed(name, c.text))
		if got := opts.Type(name); got != c.typ {
			t.Errorf("SetParsed(%q) made a %v, want %v", c.text, got, c.typ)
		}
	}
	if v, _ := opts.GetInt("b", 0); v != 42 {
		t.Errorf("parsed 42 reads %d", v)
	}
	if v, _ := opts.GetDouble("c", 0); v != 1000 {
		t.Errorf("parsed 1e3 reads %v", v)
	}
	if v, _ := opts.GetString("f", ""); v != "+5" {
		t.Errorf("parsed +5 reads %q", v)
	}
	must(t, opts.Close())
	_, err := opts.GetInt("b", 0)
	wantError(t, err, CodeFailedPrecondition, "options is closed")
	if opts.Count() != 0 || opts.Type("b") != OptionAbsent {
		t.Errorf("closed options report values")
	}
}
