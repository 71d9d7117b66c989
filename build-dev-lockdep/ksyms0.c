#include "core/ksyms.h"
#define KSYMS __attribute__((section(".ksyms"), used))
KSYMS const uint32_t ksyms_count = 0;
KSYMS const struct ksym ksyms_table[1] = {

};
KSYMS const char ksyms_names[] = "";
