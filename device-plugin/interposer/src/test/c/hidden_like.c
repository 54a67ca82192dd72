/* Found only through caller_like.c's RUNPATH. */
int hidden_like(void) { return 1; }
