# Plain-make build of the fixture (make -f plain.mk; CC, CFLAGS, AR from the command line).
CC ?= cc
CFLAGS ?= -O2
AR ?= ar

prog: main.o libutil.a
	$(CC) $(CFLAGS) -o $@ main.o libutil.a

libutil.a: util.o
	$(AR) rcs $@ util.o

%.o: %.c
	$(CC) $(CFLAGS) -c $< -o $@

clean:
	rm -f prog main.o util.o libutil.a
