/* The C half of atomic_globals.cc: C11 _Atomic, typedef'd and qualified. */
typedef _Atomic long atomic_word;
_Atomic long c_atomic;
volatile atomic_word c_typedef_atomic;
long c_plain;

int main(void) {
  c_atomic = 1;
  c_typedef_atomic = 2;
  c_plain = 3;
  return 0;
}
