module frugal_tour

go 1.19

require frugal v0.0.0

replace frugal => ../../sdk/go
