// flow.test's library case: the program is flow/app.cpp, built into a
// library with its main renamed.
int flow_main(int Argc, char **Argv);
int main(int Argc, char **Argv) { return flow_main(Argc, Argv); }
