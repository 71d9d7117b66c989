/*
 * rt_print.c - printf for integers and strings, into a buffer or an fd.
 *
 * One formatter writes through a small sink: for rt_snprintf the sink is the
 * caller's buffer (truncating, always NUL-terminated); for rt_dprintf it is a
 * stack buffer flushed with write(2) when full and at the end, so a line of
 * normal length reaches the fd in one write and is not interleaved with
 * other threads' output. Supported: flags '-' '0', width and precision
 * (number or '*'), length hh h l ll z j t, conversions d i u x X p s c %.
 * No floating point: the runtime is built with -mgeneral-regs-only.
 */
#include "rt.h"

#define RT_PRINT_BUF 512

struct rt_sink {
	char *buf;
	size_t cap;		/* bytes buf can hold (snprintf: size - 1) */
	size_t len;		/* bytes in buf now */
	size_t total;		/* bytes the format produced, even if dropped */
	int fd;			/* flush target, or -1 to truncate */
	bool failed;		/* a flush write failed */
};

struct rt_spec {
	bool left;		/* '-' */
	bool zero;		/* '0' */
	int width;
	int prec;		/* -1 if none */
	int size;		/* 0 int, 1 long, 2 long long, -1 short, -2 char */
	char conv;
};

static void rt_sink_flush(struct rt_sink *s)
{
	if (s->fd >= 0 && s->len > 0 && rt_write_all(s->fd, s->buf, s->len) < 0)
		s->failed = true;
	s->len = 0;
}

static void rt_sink_putc(struct rt_sink *s, char c)
{
	if (s->len == s->cap && s->fd >= 0)
		rt_sink_flush(s);
	if (s->len < s->cap)
		s->buf[s->len++] = c;
	s->total++;
}

static void rt_sink_repeat(struct rt_sink *s, char c, int n)
{
	for (; n > 0; n--)
		rt_sink_putc(s, c);
}

/* Emits prefix + zeros + body, padded to the spec's width. */
static void rt_emit_field(struct rt_sink *s, const struct rt_spec *sp,
			  const char *prefix, const char *body, int body_len,
			  int zeros)
{
	int plen = (int)rt_strlen(prefix);
	int pad = sp->width - plen - zeros - body_len;

	if (!sp->left && !sp->zero)
		rt_sink_repeat(s, ' ', pad);
	for (int i = 0; i < plen; i++)
		rt_sink_putc(s, prefix[i]);
	if (!sp->left && sp->zero)
		rt_sink_repeat(s, '0', pad);
	rt_sink_repeat(s, '0', zeros);
	for (int i = 0; i < body_len; i++)
		rt_sink_putc(s, body[i]);
	if (sp->left)
		rt_sink_repeat(s, ' ', pad);
}

/* Writes v's digits at the end of tmp[24]; returns where they start. */
static char *rt_format_digits(char tmp[24], uint64_t v, unsigned base, bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char *p = tmp + 24;

	do {
		*--p = digits[v % base];
		v /= base;
	} while (v != 0);
	return p;
}

static void rt_emit_uint(struct rt_sink *s, const struct rt_spec *sp,
			 const char *prefix, uint64_t v, unsigned base)
{
	char tmp[24];
	char *p = rt_format_digits(tmp, v, base, sp->conv == 'X');
	int len = (int)(tmp + 24 - p);
	int zeros = sp->prec > len ? sp->prec - len : 0;
	struct rt_spec copy = *sp;

	if (sp->prec == 0 && v == 0)
		len = 0;		/* C's rule: "%.0d" of 0 prints nothing */
	if (sp->prec >= 0)
		copy.zero = false;	/* precision overrides the '0' flag */
	rt_emit_field(s, &copy, prefix, p, len, zeros);
}

static int64_t rt_arg_signed(const struct rt_spec *sp, va_list *ap)
{
	switch (sp->size) {
	case 2: return va_arg(*ap, long long);
	case 1: return va_arg(*ap, long);
	case -1: return (short)va_arg(*ap, int);
	case -2: return (signed char)va_arg(*ap, int);
	default: return va_arg(*ap, int);
	}
}

static uint64_t rt_arg_unsigned(const struct rt_spec *sp, va_list *ap)
{
	switch (sp->size) {
	case 2: return va_arg(*ap, unsigned long long);
	case 1: return va_arg(*ap, unsigned long);
	case -1: return (unsigned short)va_arg(*ap, unsigned);
	case -2: return (unsigned char)va_arg(*ap, unsigned);
	default: return va_arg(*ap, unsigned);
	}
}

static void rt_emit_signed(struct rt_sink *s, const struct rt_spec *sp, int64_t v)
{
	/* Negate in unsigned arithmetic so INT64_MIN works. */
	uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	rt_emit_uint(s, sp, v < 0 ? "-" : "", mag, 10);
}

static void rt_emit_string(struct rt_sink *s, const struct rt_spec *sp, const char *str)
{
	int len = 0;
	struct rt_spec copy = *sp;

	if (str == NULL)
		str = "(null)";
	while (str[len] != '\0' && (sp->prec < 0 || len < sp->prec))
		len++;
	copy.zero = false;
	rt_emit_field(s, &copy, "", str, len, 0);
}

static void rt_emit_conv(struct rt_sink *s, const struct rt_spec *sp, va_list *ap)
{
	char c;

	switch (sp->conv) {
	case 'd': case 'i':
		rt_emit_signed(s, sp, rt_arg_signed(sp, ap));
		break;
	case 'u':
		rt_emit_uint(s, sp, "", rt_arg_unsigned(sp, ap), 10);
		break;
	case 'x': case 'X':
		rt_emit_uint(s, sp, "", rt_arg_unsigned(sp, ap), 16);
		break;
	case 'p':
		rt_emit_uint(s, sp, "0x", (uintptr_t)va_arg(*ap, void *), 16);
		break;
	case 's':
		rt_emit_string(s, sp, va_arg(*ap, const char *));
		break;
	case 'c':
		c = (char)va_arg(*ap, int);
		rt_emit_field(s, sp, "", &c, 1, 0);
		break;
	default:		/* '%' and unknown conversions print themselves */
		rt_sink_putc(s, sp->conv);
		break;
	}
}

/* Reads a decimal number or '*' (taken from the arguments). */
static int rt_parse_count(const char **fmt, va_list *ap)
{
	int n = 0;

	if (**fmt == '*') {
		(*fmt)++;
		return va_arg(*ap, int);
	}
	while (**fmt >= '0' && **fmt <= '9')
		n = n * 10 + (*(*fmt)++ - '0');
	return n;
}

static void rt_parse_size(const char **fmt, struct rt_spec *sp)
{
	for (;;) {
		char c = **fmt;

		if (c == 'l')
			sp->size = sp->size < 2 ? sp->size + 1 : 2;
		else if (c == 'h')
			sp->size = sp->size > -2 ? sp->size - 1 : -2;
		else if (c == 'z' || c == 'j' || c == 't')
			sp->size = 1;	/* size_t, intmax_t, ptrdiff_t are long */
		else
			return;
		(*fmt)++;
	}
}

/* Parses one conversion after its '%'; *fmt is left past it. */
static void rt_parse_spec(const char **fmt, struct rt_spec *sp, va_list *ap)
{
	*sp = (struct rt_spec){ .prec = -1 };
	for (;; (*fmt)++) {
		if (**fmt == '-')
			sp->left = true;
		else if (**fmt == '0')
			sp->zero = true;
		else
			break;
	}
	sp->width = rt_parse_count(fmt, ap);
	if (sp->width < 0) {		/* C's rule for a negative '*' width */
		sp->left = true;
		sp->width = -sp->width;
	}
	if (**fmt == '.') {
		(*fmt)++;
		sp->prec = rt_parse_count(fmt, ap);
	}
	rt_parse_size(fmt, sp);
	sp->conv = **fmt;
	if (sp->conv != '\0')
		(*fmt)++;
}

static void rt_format(struct rt_sink *s, const char *fmt, va_list ap)
{
	va_list args;
	struct rt_spec sp;

	/* Copy so helpers can take a pointer to it (portable va_list passing). */
	va_copy(args, ap);
	while (*fmt != '\0') {
		if (*fmt != '%') {
			rt_sink_putc(s, *fmt++);
			continue;
		}
		fmt++;
		rt_parse_spec(&fmt, &sp, &args);
		if (sp.conv == '\0')
			break;
		rt_emit_conv(s, &sp, &args);
	}
	va_end(args);
}

int rt_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct rt_sink s = { .buf = buf, .cap = size > 0 ? size - 1 : 0, .fd = -1 };

	rt_format(&s, fmt, ap);
	if (size > 0)
		buf[s.len] = '\0';
	return (int)s.total;
}

int rt_snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = rt_vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* Returns the byte count, or -1 if a write failed. */
int rt_vdprintf(int fd, const char *fmt, va_list ap)
{
	char buf[RT_PRINT_BUF];
	struct rt_sink s = { .buf = buf, .cap = sizeof(buf), .fd = fd };

	rt_format(&s, fmt, ap);
	rt_sink_flush(&s);
	return s.failed ? -1 : (int)s.total;
}

int rt_dprintf(int fd, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = rt_vdprintf(fd, fmt, ap);
	va_end(ap);
	return n;
}

int rt_printf(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = rt_vdprintf(1, fmt, ap);
	va_end(ap);
	return n;
}

/*
 * Prints "<what was wrong>; usage: <usage>" as one line on stderr, so a
 * runner's log names the bad argument, and exits with status 2, the
 * workloads' usage status.
 */
_Noreturn void rt_usage_error(const char *usage, const char *fmt, ...)
{
	char line[RT_PRINT_BUF];
	va_list ap;

	va_start(ap, fmt);
	rt_vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	rt_dprintf(2, "%s; usage: %s\n", line, usage);
	rt_exit_group(2);
}

/*
 * Parses argument `name` (value s) as an integer in [min, max], or exits
 * with a usage error that names it. For the workloads' argv handling.
 */
uint64_t rt_arg_u64(const char *prog, const char *usage, const char *name,
		    const char *s, uint64_t min, uint64_t max)
{
	uint64_t v = 0;
	int err = rt_parse_u64_range(s, min, max, &v);

	if (err == -RT_EINVAL)
		rt_usage_error(usage, "%s: bad %s '%s': not a number", prog, name, s);
	if (err < 0)
		rt_usage_error(usage, "%s: bad %s '%s': must be %llu..%llu", prog,
			       name, s, (unsigned long long)min,
			       (unsigned long long)max);
	return v;
}
