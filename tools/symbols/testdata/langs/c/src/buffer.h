#ifndef BUFFER_H
#define BUFFER_H

#define BUFFER_MAX 4096

struct buffer {
	char *data;
	int len;
};

int buffer_append(struct buffer *b, const char *s, int n);
void buffer_reset(struct buffer *b);

#endif
