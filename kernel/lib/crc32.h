/*
 * CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320): the checksum GPT
 * headers and partition arrays carry, the same function as zlib's crc32()
 * and Ethernet's FCS.  Pure: no state, no allocation, any byte alignment.
 *
 * Seed convention (zlib's): start with seed 0, and pass the previous result
 * as the seed to continue over more bytes.  The pre- and post-inversion are
 * done inside, so
 *     crc32(crc32(0, a, n), b, m) == crc32(0, a followed by b, n + m)
 * and crc32(0, "123456789", 9) == 0xCBF43926 (the standard check value).
 */
#ifndef CRC32_H
#define CRC32_H

#include <stdint.h>
#include <stddef.h>

uint32_t crc32(uint32_t seed, const void *buf, size_t len);

#endif
