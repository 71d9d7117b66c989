#include "test.h"
#include "lib/json.h"

TEST(json_nested_and_escaped)
{
	char buf[256];
	struct json j;
	json_init(&j, buf, sizeof buf);
	json_obj_begin(&j, NULL);
	json_str(&j, "type", "boot");
	json_u64(&j, "n", 18446744073709551615ull);
	json_i64(&j, "neg", -5);
	json_str(&j, "s", "a\"b\\c\n\x01");
	json_arr_begin(&j, "list");
	json_u64(&j, NULL, 1);
	json_obj_begin(&j, NULL);
	json_bool(&j, "ok", true);
	json_obj_end(&j);
	json_arr_end(&j);
	json_null(&j, "none");
	json_fixed(&j, "ms", 12345, 3);
	json_fixed(&j, "neg_ms", -5, 2);
	json_hex(&j, "rip", 0xffffffff80000000ull);
	json_obj_end(&j);
	CHECK(!j.overflow);
	CHECK_EQ(j.depth, 0);
	CHECK_STR(buf, "{\"type\":\"boot\",\"n\":18446744073709551615,\"neg\":-5,"
		       "\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"list\":[1,{\"ok\":true}],\"none\":null,"
		       "\"ms\":12.345,\"neg_ms\":-0.05,\"rip\":\"0xffffffff80000000\"}");
}

TEST(json_overflow_is_flagged_not_truncated_silently)
{
	char buf[16];
	struct json j;
	json_init(&j, buf, sizeof buf);
	json_obj_begin(&j, NULL);
	json_str(&j, "type", "a very long string");
	json_obj_end(&j);
	CHECK(j.overflow);
	CHECK(strlen(buf) < sizeof buf);
}
