/* See spin_hint.c. */
#ifndef MANYCORE_SPIN_HINT_H
#define MANYCORE_SPIN_HINT_H
void manycore_spin_hint(void);
void manycore_spin_hint_yield(void);
void manycore_spin_hint_while_low(void);
void manycore_priority_low(void);
void manycore_priority_medium(void);
const char *manycore_spin_hint_name(void);
#endif
