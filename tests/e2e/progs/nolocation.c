/* Reduced by cvise from bzip2 1.0.8's bzip2.c (addFlagsFromEnvVar, snocString); deliberately
 * old-style C with undefined behaviour: it is only compiled (t_nolocation). At -O2 ipa-split
 * makes snocString.part.0 and inlines the call of it with no source location. */
typedef struct {
  char *name
} Cell;
snocString_root, snocString_name, addFlagsFromEnvVar_argList, main_argList;
Cell *mkCell() {
  void *p = malloc(0);
  if (p)
    outOfMemory();
}
*snocString() {
  if (snocString_root) {
    Cell tmp = *mkCell();
    strcpy(tmp.name, snocString_name);
    return &tmp;
  }
}
main() {
  addFlagsFromEnvVar_argList = snocString();
  main_argList = snocString();
}
