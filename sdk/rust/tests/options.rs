//! Options read back: each getter returns what was set, defaults when a
//! name is absent, an int reads as a double, set_parsed picks the type, and
//! a wrong-type read is an INVALID_ARGUMENT naming the option.

use frugal::{ErrorCode, OptionType, Options};

fn filled() -> Options {
    let mut o = Options::new().unwrap();
    o.set_int("max_len", 4096)
        .unwrap()
        .set_double("lr", 3e-4)
        .unwrap()
        .set_bool("fsync", true)
        .unwrap()
        .set_string("algo", "ffd")
        .unwrap();
    o
}

#[test]
fn getters_return_what_was_set_and_defaults_when_absent() {
    let o = filled();
    assert_eq!(o.get_int("max_len", -1).unwrap(), 4096);
    assert_eq!(o.get_double("lr", -1.0).unwrap(), 3e-4);
    assert!(o.get_bool("fsync", false).unwrap());
    assert_eq!(o.get_string("algo").unwrap().as_deref(), Some("ffd"));
    // An INT may be read as a double, exactly.
    assert_eq!(o.get_double("max_len", -1.0).unwrap(), 4096.0);

    assert_eq!(o.get_int("absent", 17).unwrap(), 17);
    assert_eq!(o.get_double("absent", 0.5).unwrap(), 0.5);
    assert!(o.get_bool("absent", true).unwrap());
    assert_eq!(o.get_string("absent").unwrap(), None);
}

#[test]
fn types_and_entries_follow_insertion_order() {
    let mut o = filled();
    assert_eq!(o.value_type("max_len"), Some(OptionType::Int));
    assert_eq!(o.value_type("lr"), Some(OptionType::Double));
    assert_eq!(o.value_type("fsync"), Some(OptionType::Bool));
    assert_eq!(o.value_type("algo"), Some(OptionType::String));
    assert_eq!(o.value_type("absent"), None);
    assert_eq!(OptionType::Int.raw(), frugal::sys::FRUGAL_OPTION_INT);

    // Setting an existing name again keeps its position but takes the new type.
    o.set_string("max_len", "long").unwrap();
    let entries = o.entries().unwrap();
    let want = [
        ("max_len", OptionType::String),
        ("lr", OptionType::Double),
        ("fsync", OptionType::Bool),
        ("algo", OptionType::String),
    ];
    assert_eq!(entries, want.iter().map(|(n, t)| (n.to_string(), *t)).collect::<Vec<_>>());
    let err = o.entry(4).unwrap_err();
    assert_eq!(err.code(), ErrorCode::OutOfRange, "{}", err);
}

#[test]
fn set_parsed_picks_the_type_the_text_spells() {
    let mut o = Options::new().unwrap();
    let cases = [
        ("a", "true", OptionType::Bool),
        ("b", "-42", OptionType::Int),
        ("c", "2.5e3", OptionType::Double),
        ("d", "99999999999999999999", OptionType::Double),
        ("e", "inf", OptionType::Double),
        ("f", "+1", OptionType::String),
        ("g", " 7", OptionType::String),
        ("h", "True", OptionType::String),
    ];
    for (name, text, ty) in cases {
        o.set_parsed(name, text).unwrap();
        assert_eq!(o.value_type(name), Some(ty), "{:?}", text);
    }
    assert!(o.get_bool("a", false).unwrap());
    assert_eq!(o.get_int("b", 0).unwrap(), -42);
    assert_eq!(o.get_double("c", 0.0).unwrap(), 2500.0);
    assert_eq!(o.get_double("d", 0.0).unwrap(), 1e20);
    assert_eq!(o.get_double("e", 0.0).unwrap(), f64::INFINITY);
    assert_eq!(o.get_string("f").unwrap().as_deref(), Some("+1"));
    assert_eq!(o.get_string("g").unwrap().as_deref(), Some(" 7"));
}

#[test]
fn a_wrong_type_read_is_invalid_argument_naming_the_option() {
    let o = filled();
    for (result, name) in [
        (o.get_int("lr", 0).map(|_| ()), "lr"),
        (o.get_int("algo", 0).map(|_| ()), "algo"),
        (o.get_bool("max_len", false).map(|_| ()), "max_len"),
        (o.get_string("fsync").map(|_| ()), "fsync"),
        (o.get_double("algo", 0.0).map(|_| ()), "algo"),
    ] {
        let err = result.unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidArgument, "{}", err);
        assert_eq!(err.name(), "INVALID_ARGUMENT");
        assert!(err.message().contains(name), "{:?} should name {}", err.message(), name);
    }
    // Bad names are refused at set time.
    let mut o = Options::new().unwrap();
    let err = o.set_parsed("bad name", "1").err().unwrap();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
}
