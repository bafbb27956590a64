// Holds the precompiled Catch2 header every test target reuses
// (tests/CMakeLists.txt, frugal_catch_pch). Never run.
int main() { return 0; }
