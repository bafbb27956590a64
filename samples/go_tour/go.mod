module frugal_tour

go 1.19

require frugal.invalid/sdk/go v0.0.0

replace frugal.invalid/sdk/go => ../../sdk/go
