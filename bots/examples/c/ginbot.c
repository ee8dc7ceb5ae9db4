/*
 * An example gin-arena bot in C99, using nothing beyond the C standard library.
 *
 * It speaks the gin-arena protocol, version 1: one JSON object per line on stdin and stdout.
 * It plays like the built-in `greedy` bot: it takes the upcard when that lowers its deadwood,
 * discards the card that leaves the least deadwood (the highest card among equals) and knocks as
 * soon as a knock is legal. The action it sends is the raw JSON text of one entry of the
 * request's `legal` list, copied verbatim.
 *
 * Logs go to stderr only: stdout carries the protocol and nothing else.
 *
 * Build: make   (cc -std=c99 -O2 -Wall -Wextra -Werror -o ginbot ginbot.c)
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "example-c"
#define AUTHOR "gin-rummy-arena"
#define BOT_VERSION "1"
#define PROTOCOL_VERSION 1

#define MAX_LINE_BYTES (64 * 1024) /* protocol.messages.MAX_LINE_BYTES */
#define MAX_DEPTH 64               /* deepest JSON nesting we walk through */
#define MAX_HAND 16                /* a hand has 10 or 11 cards; extra cards are ignored */
#define MAX_LEGAL 128              /* the legal list has at most 23 actions */
#define MAX_MELDS 512
#define MAX_TEXT 64                /* longest string value we need to read ("discard", "7H") */

/* ---- cards ---------------------------------------------------------------------------------- */

/* A card is suit * 13 + rank: ranks A..K are 0..12, suits C D H S are 0..3; -1 is no card. */
static int card_rank(int card) { return card % 13; }
static int card_suit(int card) { return card / 13; }
static int card_value(int card) { return card_rank(card) >= 9 ? 10 : card_rank(card) + 1; }

/* "TD", "10d", "as" -> a card, or -1. */
static int parse_card(const char *text)
{
    static const char ranks[] = "A23456789TJQK";
    static const char suits[] = "CDHS";
    const char *r, *s;
    char rank = text[0], suit;
    size_t rest = 1;
    if (text[0] == '1' && text[1] == '0') {
        rank = 'T';
        rest = 2;
    }
    suit = text[rest];
    if (rank == '\0' || suit == '\0' || text[rest + 1] != '\0')
        return -1;
    if (rank >= 'a' && rank <= 'z')
        rank = (char)(rank - 'a' + 'A');
    if (suit >= 'a' && suit <= 'z')
        suit = (char)(suit - 'a' + 'A');
    r = strchr(ranks, rank);
    s = strchr(suits, suit);
    if (r == NULL || s == NULL)
        return -1;
    return (int)(s - suits) * 13 + (int)(r - ranks);
}

/* ---- the meld solver ------------------------------------------------------------------------ */
/*
 * A hand of n <= MAX_HAND cards; sets of its cards are bitmasks over positions 0..n-1.
 * deadwood(mask) is the least deadwood of the cards in mask over every choice of disjoint melds,
 * computed exactly by a memoised search: the lowest card left is either deadwood or in one of the
 * melds that contain it.
 */

typedef struct {
    int n;
    int cards[MAX_HAND];
    int nmelds;
    unsigned melds[MAX_MELDS];
    int memo[1u << MAX_HAND]; /* -1: not computed yet */
} Solver;

static Solver solver; /* large: static, not on the stack */

static int position_of(const Solver *s, int card)
{
    int i;
    for (i = 0; i < s->n; i++)
        if (s->cards[i] == card)
            return i;
    return -1;
}

static void add_meld(Solver *s, unsigned mask)
{
    if (s->nmelds < MAX_MELDS)
        s->melds[s->nmelds++] = mask;
}

/* Prepare the solver for `cards` (distinct cards, at most MAX_HAND of them). */
static void solver_init(Solver *s, const int *cards, int n)
{
    int rank, suit, low, i;
    s->n = n;
    s->nmelds = 0;
    memcpy(s->cards, cards, (size_t)n * sizeof *cards);
    memset(s->memo, 0xff, (sizeof s->memo[0]) << n); /* every entry -1 */
    /* Sets: 3 or 4 of a rank, and each 3-card part of a 4-card set. */
    for (rank = 0; rank < 13; rank++) {
        unsigned all = 0;
        int count = 0;
        for (suit = 0; suit < 4; suit++) {
            int at = position_of(s, suit * 13 + rank);
            if (at >= 0) {
                all |= 1u << at;
                count++;
            }
        }
        if (count >= 3)
            add_meld(s, all);
        if (count == 4)
            for (i = 0; i < n; i++)
                if (all & (1u << i))
                    add_meld(s, all & ~(1u << i));
    }
    /* Runs: 3 or more consecutive ranks of one suit; the Ace is low and nothing wraps. */
    for (suit = 0; suit < 4; suit++)
        for (low = 0; low < 13; low++) {
            unsigned mask = 0;
            for (rank = low; rank < 13; rank++) {
                int at = position_of(s, suit * 13 + rank);
                if (at < 0)
                    break;
                mask |= 1u << at;
                if (rank - low >= 2)
                    add_meld(s, mask);
            }
        }
}

static int deadwood(Solver *s, unsigned mask)
{
    unsigned low;
    int i, k, best, d;
    if (mask == 0)
        return 0;
    if (s->memo[mask] >= 0)
        return s->memo[mask];
    low = mask & (~mask + 1u);
    for (i = 0; !(low & (1u << i)); i++)
        ;
    best = card_value(s->cards[i]) + deadwood(s, mask & ~low);
    for (k = 0; k < s->nmelds; k++) {
        unsigned meld = s->melds[k];
        if ((meld & low) && (meld & mask) == meld) {
            d = deadwood(s, mask & ~meld);
            if (d < best)
                best = d;
        }
    }
    s->memo[mask] = best;
    return best;
}

static unsigned all_of(const Solver *s) { return (1u << s->n) - 1u; }

/* ---- a tiny JSON reader --------------------------------------------------------------------- */
/*
 * Every function takes a pointer into the line and the end of the line, never reads past the
 * end, and returns NULL for anything it cannot read. Values are not copied: a value is known by
 * where it starts, and skip_value() finds where it ends.
 */

typedef struct {
    const char *start;
    const char *end;
} Span;

static const char *skip_ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* p at the opening quote; returns the position after the closing quote. */
static const char *skip_string(const char *p, const char *e)
{
    if (p >= e || *p != '"')
        return NULL;
    for (p++; p < e; p++) {
        if (*p == '\\') {
            p++;
            if (p >= e)
                return NULL;
        } else if (*p == '"') {
            return p + 1;
        } else if ((unsigned char)*p < 0x20) {
            return NULL;
        }
    }
    return NULL;
}

static const char *skip_value(const char *p, const char *e, int depth);

/* p at '{' or '['; returns the position after the matching '}' or ']'. */
static const char *skip_container(const char *p, const char *e, int depth)
{
    char close = *p == '{' ? '}' : ']';
    int object = *p == '{';
    if (depth >= MAX_DEPTH)
        return NULL;
    p = skip_ws(p + 1, e);
    if (p < e && *p == close)
        return p + 1;
    for (;;) {
        if (object) {
            p = skip_string(p, e);
            if (p == NULL)
                return NULL;
            p = skip_ws(p, e);
            if (p >= e || *p != ':')
                return NULL;
            p = skip_ws(p + 1, e);
        }
        p = skip_value(p, e, depth + 1);
        if (p == NULL)
            return NULL;
        p = skip_ws(p, e);
        if (p < e && *p == ',') {
            p = skip_ws(p + 1, e);
            continue;
        }
        if (p < e && *p == close)
            return p + 1;
        return NULL;
    }
}

/* Any JSON value; returns the position after it. */
static const char *skip_value(const char *p, const char *e, int depth)
{
    const char *start = p;
    if (p >= e)
        return NULL;
    if (*p == '"')
        return skip_string(p, e);
    if (*p == '{' || *p == '[')
        return skip_container(p, e, depth);
    /* a number, true, false or null */
    while (p < e && (strchr("+-.0123456789eE", *p) != NULL || (*p >= 'a' && *p <= 'z')))
        p++;
    return p > start ? p : NULL;
}

/* The value of `key` in the object at p (the last one if the key is repeated), or NULL. */
static const char *find_key(const char *p, const char *e, const char *key)
{
    const char *found = NULL;
    size_t len = strlen(key);
    if (p == NULL || p >= e || *p != '{')
        return NULL;
    p = skip_ws(p + 1, e);
    if (p < e && *p == '}')
        return NULL;
    for (;;) {
        const char *name = p + 1, *after = skip_string(p, e);
        if (after == NULL)
            return NULL;
        p = skip_ws(after, e);
        if (p >= e || *p != ':')
            return NULL;
        p = skip_ws(p + 1, e);
        if ((size_t)(after - 1 - name) == len && memcmp(name, key, len) == 0)
            found = p;
        p = skip_value(p, e, 1);
        if (p == NULL)
            return NULL;
        p = skip_ws(p, e);
        if (p < e && *p == ',') {
            p = skip_ws(p + 1, e);
            continue;
        }
        return p < e && *p == '}' ? found : NULL;
    }
}

/* The items of the array at p, at most max of them; returns how many, or -1. */
static int array_items(const char *p, const char *e, Span *items, int max)
{
    int n = 0;
    if (p == NULL || p >= e || *p != '[')
        return -1;
    p = skip_ws(p + 1, e);
    if (p < e && *p == ']')
        return 0;
    for (;;) {
        const char *end = skip_value(p, e, 1);
        if (end == NULL)
            return -1;
        if (n < max) {
            items[n].start = p;
            items[n].end = end;
            n++;
        }
        p = skip_ws(end, e);
        if (p < e && *p == ',') {
            p = skip_ws(p + 1, e);
            continue;
        }
        return p < e && *p == ']' ? n : -1;
    }
}

/* Where the last item of the array at p starts, or NULL (empty, or not an array). */
static const char *last_item(const char *p, const char *e)
{
    const char *last = NULL;
    if (p == NULL || p >= e || *p != '[')
        return NULL;
    p = skip_ws(p + 1, e);
    if (p < e && *p == ']')
        return NULL;
    for (;;) {
        const char *end = skip_value(p, e, 1);
        if (end == NULL)
            return NULL;
        last = p;
        p = skip_ws(end, e);
        if (p < e && *p == ',') {
            p = skip_ws(p + 1, e);
            continue;
        }
        return p < e && *p == ']' ? last : NULL;
    }
}

/* The string at p, unescaped into out (cap bytes with the NUL); its length, or -1. Escapes that
 * stand for anything but plain ASCII become '?': no value we need contains one. */
static int read_string(const char *p, const char *e, char *out, size_t cap)
{
    size_t n = 0;
    const char *end = skip_string(p, e);
    if (end == NULL)
        return -1;
    for (p++; p < end - 1; p++) {
        char c = *p;
        if (c == '\\') {
            p++;
            switch (*p) {
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'u': {
                unsigned code = 0;
                int k;
                if (end - 1 - p < 5)
                    return -1;
                for (k = 1; k <= 4; k++) {
                    char h = p[k];
                    code <<= 4;
                    if (h >= '0' && h <= '9') code |= (unsigned)(h - '0');
                    else if (h >= 'a' && h <= 'f') code |= (unsigned)(h - 'a' + 10);
                    else if (h >= 'A' && h <= 'F') code |= (unsigned)(h - 'A' + 10);
                    else return -1;
                }
                p += 4;
                c = code >= 0x20 && code < 0x7f ? (char)code : '?';
                break;
            }
            default: c = *p; break; /* \" \\ \/ */
            }
        }
        if (n + 1 >= cap)
            return -1;
        out[n++] = c;
    }
    out[n] = '\0';
    return (int)n;
}

/* The string value of `key` in the object at p, or "" if absent or not a short string. */
static void string_field(const char *p, const char *e, const char *key, char *out, size_t cap)
{
    const char *v = find_key(p, e, key);
    if (v == NULL || read_string(v, e, out, cap) < 0)
        out[0] = '\0';
}

/* The integer at p (no fraction or exponent), or -1 if it is not a small non-negative one. */
static long read_int(const char *p, const char *e)
{
    long value = 0;
    const char *start = p;
    while (p < e && *p >= '0' && *p <= '9' && value < 1000000000L)
        value = value * 10 + (*p++ - '0');
    if (p == start || (p < e && strchr(".eE0123456789", *p) != NULL))
        return -1;
    return value;
}

/* Is the span a JSON integer of one or more digits (of any length: the id is copied as text)? */
static int is_digits(Span s)
{
    const char *p;
    for (p = s.start; p < s.end; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return s.end > s.start;
}

/* The cards of the array at p, without duplicates or unreadable entries; how many. */
static int card_list(const char *p, const char *e, int *cards, int max)
{
    Span items[64];
    char text[MAX_TEXT];
    int n = 0, count = array_items(p, e, items, 64), i, j;
    for (i = 0; i < count && n < max; i++) {
        int card;
        if (read_string(items[i].start, e, text, sizeof text) < 0)
            continue;
        card = parse_card(text);
        for (j = 0; j < n && card >= 0; j++)
            if (cards[j] == card)
                card = -1;
        if (card >= 0)
            cards[n++] = card;
    }
    return n;
}

/* ---- decisions ------------------------------------------------------------------------------ */

typedef struct {
    Span raw;        /* the action's JSON text */
    char kind[MAX_TEXT];
    char source[MAX_TEXT];
    int card;        /* -1: none */
    int has_card;    /* a "card" field that is not null */
} Action;

/* Would taking `top` into `hand`, then discarding another card at best, lower the deadwood? The
 * taken card is never counted as a discard: discarding it again gains nothing, and the rules
 * usually forbid it (R8). */
static int taking_helps(const int *hand, int n, int top)
{
    int cards[MAX_HAND], now, i;
    if (top < 0 || n + 1 > MAX_HAND)
        return 0;
    for (i = 0; i < n; i++)
        if (hand[i] == top)
            return 0;
    solver_init(&solver, hand, n);
    now = deadwood(&solver, all_of(&solver));
    memcpy(cards, hand, (size_t)n * sizeof *hand);
    cards[n] = top;
    solver_init(&solver, cards, n + 1);
    for (i = 0; i < n; i++)
        if (deadwood(&solver, all_of(&solver) & ~(1u << i)) < now)
            return 1;
    return 0;
}

/* Is a better than b as the card to throw: less deadwood left, then the higher value, rank, suit. */
static int better(int dw_a, int card_a, int dw_b, int card_b)
{
    if (dw_a != dw_b)
        return dw_a < dw_b;
    if (card_value(card_a) != card_value(card_b))
        return card_value(card_a) > card_value(card_b);
    if (card_rank(card_a) != card_rank(card_b))
        return card_rank(card_a) > card_rank(card_b);
    return card_suit(card_a) > card_suit(card_b);
}

/* Among the actions of `kind` with a card held in the hand the solver was set up with, the one
 * whose card leaves the least deadwood; -1 if none. */
static int best_throw(const Action *legal, int n, const char *kind)
{
    int best = -1, best_dw = 0, i;
    for (i = 0; i < n; i++) {
        int at, dw;
        if (strcmp(legal[i].kind, kind) != 0 || legal[i].card < 0)
            continue;
        at = position_of(&solver, legal[i].card);
        if (at < 0)
            continue;
        dw = deadwood(&solver, all_of(&solver) & ~(1u << at));
        if (best < 0 || better(dw, legal[i].card, best_dw, legal[best].card)) {
            best = i;
            best_dw = dw;
        }
    }
    return best;
}

static int find_action(const Action *legal, int n, const char *kind, const char *source)
{
    int i;
    for (i = 0; i < n; i++)
        if (strcmp(legal[i].kind, kind) == 0
            && (source == NULL || strcmp(legal[i].source, source) == 0))
            return i;
    return -1;
}

/* The index of the chosen action in legal (n > 0). */
static int choose(const Action *legal, int n, const int *hand, int hand_size, int top)
{
    int i, pick;
    int discard_phase = 0;
    for (i = 0; i < n; i++)
        if (strcmp(legal[i].kind, "discard") == 0 || strcmp(legal[i].kind, "knock") == 0)
            discard_phase = 1;
    if (!discard_phase) {
        pick = find_action(legal, n, "draw", "discard");
        if (pick >= 0 && taking_helps(hand, hand_size, top))
            return pick;
        pick = find_action(legal, n, "draw", "stock");
        if (pick < 0)
            pick = find_action(legal, n, "pass", NULL);
        return pick >= 0 ? pick : 0;
    }
    for (i = 0; i < n; i++) /* big gin: a knock without a card */
        if (strcmp(legal[i].kind, "knock") == 0 && !legal[i].has_card)
            return i;
    solver_init(&solver, hand, hand_size);
    pick = best_throw(legal, n, "knock");
    if (pick < 0)
        pick = best_throw(legal, n, "discard");
    return pick >= 0 ? pick : 0;
}

/* ---- the protocol --------------------------------------------------------------------------- */

static Action legal[MAX_LEGAL];

static void send_line(const char *text, int len)
{
    if (fwrite(text, 1, (size_t)len, stdout) != (size_t)len || fflush(stdout) != 0) {
        fprintf(stderr, NAME ": cannot write to stdout; exiting\n");
        exit(1);
    }
}

/* Write the raw JSON text of span, dropping control characters: outside strings they can only
 * be whitespace (and a raw newline would break the framing); inside strings they are invalid. */
static void send_raw(Span s)
{
    const char *p;
    for (p = s.start; p < s.end; p++)
        if ((unsigned char)*p >= 0x20)
            putc(*p, stdout);
}

static void on_hello(const char *msg, const char *e)
{
    Span versions[64];
    int n = array_items(find_key(msg, e, "versions"), e, versions, 64), i;
    for (i = 0; i < n; i++)
        if (read_int(versions[i].start, versions[i].end) == PROTOCOL_VERSION) {
            char out[256];
            int len = sprintf(out,
                              "{\"type\":\"ready\",\"protocol_version\":%d,\"name\":\"" NAME
                              "\",\"author\":\"" AUTHOR "\",\"bot_version\":\"" BOT_VERSION "\"}\n",
                              PROTOCOL_VERSION);
            send_line(out, len);
            return;
        }
    fprintf(stderr, NAME ": the referee offers no protocol version I speak (I speak %d)\n",
            PROTOCOL_VERSION);
    exit(2);
}

static void on_request(const char *msg, const char *e)
{
    Span items[MAX_LEGAL], id;
    const char *obs, *pile;
    int hand[MAX_HAND];
    int count, n, i, hand_size, top = -1, pick;

    id.start = find_key(msg, e, "id");
    id.end = id.start == NULL ? NULL : skip_value(id.start, e, 1);
    if (id.end == NULL || !is_digits(id)) {
        fprintf(stderr, NAME ": ignoring a request without a valid id\n");
        return;
    }
    count = array_items(find_key(msg, e, "legal"), e, items, MAX_LEGAL);
    for (i = 0, n = 0; i < count; i++) {
        const char *start = items[i].start, *end = items[i].end, *card;
        char text[MAX_TEXT];
        Action *a = &legal[n];
        if (*start != '{') /* an action is an object; anything else cannot be sent back */
            continue;
        a->raw = items[i];
        string_field(start, end, "kind", a->kind, MAX_TEXT);
        string_field(start, end, "source", a->source, MAX_TEXT);
        card = find_key(start, end, "card");
        a->has_card = card != NULL && *card != 'n'; /* absent or null: no card */
        a->card = -1;
        if (card != NULL && read_string(card, end, text, sizeof text) >= 0)
            a->card = parse_card(text);
        n++;
    }
    if (n <= 0) {
        fprintf(stderr, NAME ": request %.*s has no legal action; not answering\n",
                (int)(id.end - id.start), id.start);
        return;
    }
    obs = find_key(msg, e, "observation");
    hand_size = card_list(find_key(obs, e, "hand"), e, hand, MAX_HAND - 1);
    pile = last_item(find_key(obs, e, "discard_pile"), e);
    if (pile != NULL) {
        char text[MAX_TEXT];
        if (read_string(pile, e, text, sizeof text) >= 0)
            top = parse_card(text);
    }
    pick = choose(legal, n, hand, hand_size, top);
    printf("{\"type\":\"reply\",\"id\":%.*s,\"action\":", (int)(id.end - id.start), id.start);
    send_raw(legal[pick].raw);
    send_line("}\n", 2);
}

/* Handle one line (without its newline); returns 0 to stop. */
static int handle_line(const char *line, const char *e)
{
    char type[MAX_TEXT];
    const char *msg = skip_ws(line, e), *end;
    if (msg == e)
        return 1; /* blank */
    end = *msg == '{' ? skip_value(msg, e, 0) : NULL;
    if (end == NULL || skip_ws(end, e) != e) {
        fprintf(stderr, NAME ": ignoring a line that is not a JSON object: %.80s\n", line);
        return 1;
    }
    string_field(msg, e, "type", type, sizeof type);
    if (strcmp(type, "hello") == 0)
        on_hello(msg, e);
    else if (strcmp(type, "request") == 0)
        on_request(msg, e);
    else if (strcmp(type, "quit") == 0)
        return 0;
    else if (strcmp(type, "error") == 0) {
        char reason[MAX_TEXT];
        string_field(msg, e, "reason", reason, sizeof reason);
        fprintf(stderr, NAME ": the referee reports an error: %s\n", reason);
    }
    /* game_start, hand_start, played, show_down, hand_end, game_end need no answer; unknown
       types are ignored, as the protocol may grow. */
    return 1;
}

static char line[MAX_LINE_BYTES + 2];

int main(void)
{
    size_t len = 0;
    int c, too_long = 0;
    while ((c = getchar()) != EOF) {
        if (c != '\n') {
            if (len < sizeof line - 1)
                line[len++] = (char)c;
            else
                too_long = 1;
            continue;
        }
        if (len > 0 && line[len - 1] == '\r')
            len--;
        line[len] = '\0';
        if (too_long || len > MAX_LINE_BYTES)
            fprintf(stderr, NAME ": ignoring a line over %d bytes\n", MAX_LINE_BYTES);
        else if (!handle_line(line, line + len))
            return 0;
        len = 0;
        too_long = 0;
    }
    if (len > 0 && !too_long) { /* a last line without its newline */
        line[len] = '\0';
        handle_line(line, line + len);
    }
    return 0;
}
