module frugal

go 1.19
