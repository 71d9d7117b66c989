#include "test.h"
#include "lib/crc32.h"

TEST(crc32_check_values)
{
	CHECK_EQ(crc32(0, "123456789", 9), 0xCBF43926u);         /* the standard check value */
	CHECK_EQ(crc32(0, "", 0), 0);
	CHECK_EQ(crc32(0, "a", 1), 0xE8B7BE43u);
	CHECK_EQ(crc32(0, "The quick brown fox jumps over the lazy dog", 43), 0x414FA339u);
	uint8_t zeros[32] = { 0 };
	CHECK_EQ(crc32(0, zeros, 32), 0x190A55ADu);
}

TEST(crc32_streaming_equals_one_shot)
{
	uint8_t buf[1000];
	for (int i = 0; i < 1000; i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	uint32_t whole = crc32(0, buf, sizeof buf);
	for (size_t cut = 0; cut <= sizeof buf; cut += 37) {
		uint32_t c = crc32(0, buf, cut);
		CHECK_EQ(crc32(c, buf + cut, sizeof buf - cut), whole);
	}
	uint32_t c = 0;
	for (size_t i = 0; i < sizeof buf; i++)
		c = crc32(c, buf + i, 1);
	CHECK_EQ(c, whole);
}

TEST(crc32_unaligned_buffer)
{
	uint8_t buf[64];
	for (int i = 0; i < 64; i++)
		buf[i] = (uint8_t)i;
	CHECK_EQ(crc32(0, buf + 1, 9), crc32(crc32(0, buf + 1, 4), buf + 5, 5));
}
