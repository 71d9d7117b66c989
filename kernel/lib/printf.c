/*
 * The printf engine.  Pure: a conversion is parsed into a small spec, the
 * number is rendered right-to-left into a local buffer, then padding and
 * the digits go to the sink.  The return value counts characters as
 * C's printf does, whatever the sink kept.
 */
#include <stdint.h>
#include <stdbool.h>
#include "printf.h"

struct spec {
	bool left, zero, plus;
	int width, prec;        /* prec < 0: none */
	int len;                /* 0 int, 1 long, 2 long long, -1 short, -2 char, 3 size_t */
	char conv;
};

struct out {
	fmt_sink sink;
	void *ctx;
	int count;
};

static void emit(struct out *o, const char *s, size_t n)
{
	if (n) {
		o->sink(o->ctx, s, n);
		o->count += (int)n;
	}
}

static void pad(struct out *o, char c, int n)
{
	char buf[16];
	for (int i = 0; i < 16; i++)
		buf[i] = c;
	for (; n > 0; n -= 16)
		emit(o, buf, n < 16 ? (size_t)n : 16);
}

static const char *parse_spec(const char *f, struct spec *sp, va_list *ap)
{
	*sp = (struct spec){ .prec = -1 };
	for (;; f++) {
		if (*f == '-') sp->left = true;
		else if (*f == '0') sp->zero = true;
		else if (*f == '+') sp->plus = true;
		else break;
	}
	if (*f == '*') {
		sp->width = va_arg(*ap, int);
		if (sp->width < 0) { sp->left = true; sp->width = -sp->width; }
		f++;
	}
	while (*f >= '0' && *f <= '9')
		sp->width = sp->width * 10 + (*f++ - '0');
	if (*f == '.') {
		f++;
		sp->prec = 0;
		if (*f == '*') { sp->prec = va_arg(*ap, int); f++; }
		while (*f >= '0' && *f <= '9')
			sp->prec = sp->prec * 10 + (*f++ - '0');
	}
	for (;; f++) {
		if (*f == 'l') sp->len = sp->len == 1 ? 2 : 1;
		else if (*f == 'h') sp->len = sp->len == -1 ? -2 : -1;
		else if (*f == 'z') sp->len = 3;
		else break;
	}
	sp->conv = *f;
	return *f ? f + 1 : f;
}

static uint64_t fetch_unsigned(const struct spec *sp, va_list *ap)
{
	switch (sp->len) {
	case 1: return va_arg(*ap, unsigned long);
	case 2: return va_arg(*ap, unsigned long long);
	case 3: return va_arg(*ap, size_t);
	case -1: return (unsigned short)va_arg(*ap, unsigned int);
	case -2: return (unsigned char)va_arg(*ap, unsigned int);
	default: return va_arg(*ap, unsigned int);
	}
}

static int64_t fetch_signed(const struct spec *sp, va_list *ap)
{
	switch (sp->len) {
	case 1: return va_arg(*ap, long);
	case 2: return va_arg(*ap, long long);
	case 3: return (int64_t)va_arg(*ap, size_t);
	case -1: return (short)va_arg(*ap, int);
	case -2: return (signed char)va_arg(*ap, int);
	default: return va_arg(*ap, int);
	}
}

static void put_number(struct out *o, const struct spec *sp, uint64_t v, bool neg, unsigned base, const char *prefix)
{
	const char *digits = sp->conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
	char buf[24];
	int n = 0;
	do {
		buf[sizeof buf - 1 - n++] = digits[v % base];
		v /= base;
	} while (v);
	int zeros = sp->prec > n ? sp->prec - n : 0;
	const char *sign = neg ? "-" : (sp->plus ? "+" : "");
	int plen = 0;
	while (prefix[plen]) plen++;
	int slen = sign[0] ? 1 : 0;
	int total = n + zeros + plen + slen;
	if (sp->zero && !sp->left && sp->prec < 0 && sp->width > total) {
		zeros += sp->width - total;
		total = sp->width;
	}
	if (!sp->left)
		pad(o, ' ', sp->width - total);
	emit(o, sign, (size_t)slen);
	emit(o, prefix, (size_t)plen);
	pad(o, '0', zeros);
	emit(o, buf + sizeof buf - n, (size_t)n);
	if (sp->left)
		pad(o, ' ', sp->width - total);
}

static void put_string(struct out *o, const struct spec *sp, const char *s)
{
	if (!s)
		s = "(null)";
	int n = 0;
	while (s[n] && (sp->prec < 0 || n < sp->prec))
		n++;
	if (!sp->left)
		pad(o, ' ', sp->width - n);
	emit(o, s, (size_t)n);
	if (sp->left)
		pad(o, ' ', sp->width - n);
}

static void convert(struct out *o, const struct spec *sp, va_list *ap)
{
	switch (sp->conv) {
	case 'd': case 'i': {
		int64_t v = fetch_signed(sp, ap);
		put_number(o, sp, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0, 10, "");
		break;
	}
	case 'u': put_number(o, sp, fetch_unsigned(sp, ap), false, 10, ""); break;
	case 'x': case 'X': put_number(o, sp, fetch_unsigned(sp, ap), false, 16, ""); break;
	case 'o': put_number(o, sp, fetch_unsigned(sp, ap), false, 8, ""); break;
	case 'p': {
		struct spec p = *sp;
		p.conv = 'x';
		put_number(o, &p, (uintptr_t)va_arg(*ap, void *), false, 16, "0x");
		break;
	}
	case 's': put_string(o, sp, va_arg(*ap, const char *)); break;
	case 'c': {
		char c = (char)va_arg(*ap, int);
		if (!sp->left) pad(o, ' ', sp->width - 1);
		emit(o, &c, 1);
		if (sp->left) pad(o, ' ', sp->width - 1);
		break;
	}
	case '%': emit(o, "%", 1); break;
	default: emit(o, "%?", 2); break;
	}
}

int fmt_vformat(fmt_sink sink, void *ctx, const char *fmt, va_list ap)
{
	struct out o = { sink, ctx, 0 };
	va_list aq;
	va_copy(aq, ap);
	while (*fmt) {
		const char *lit = fmt;
		while (*fmt && *fmt != '%')
			fmt++;
		emit(&o, lit, (size_t)(fmt - lit));
		if (!*fmt)
			break;
		struct spec sp;
		fmt = parse_spec(fmt + 1, &sp, &aq);
		if (!sp.conv)
			break;
		convert(&o, &sp, &aq);
	}
	va_end(aq);
	return o.count;
}

struct bufctx {
	char *buf;
	size_t cap, len;
};

static void buf_sink(void *ctx, const char *s, size_t n)
{
	struct bufctx *b = ctx;
	for (size_t i = 0; i < n && b->len + 1 < b->cap; i++)
		b->buf[b->len++] = s[i];
}

int kvsnprintf(char *buf, size_t cap, const char *fmt, va_list ap)
{
	struct bufctx b = { buf, cap, 0 };
	int n = fmt_vformat(buf_sink, &b, fmt, ap);
	if (cap)
		buf[b.len] = 0;
	return n;
}

int ksnprintf(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = kvsnprintf(buf, cap, fmt, ap);
	va_end(ap);
	return n;
}
