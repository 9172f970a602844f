/* stub: replaced by the CLI work */
int main(void) { return 1; }
