// The project has no public repository: the path lies under the reserved
// top-level domain .invalid, so it can never resolve or be fetched, and a
// build without a replace directive fails instead of downloading someone
// else's module. Users point it at their copy of sdk/go (README.md).
module frugal.invalid/sdk/go

go 1.19
