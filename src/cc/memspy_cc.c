/* stub: replaced by the compiler-wrapper work */
int main(void) { return 1; }
