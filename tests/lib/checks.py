"""A test's checks, counted: each printed as "<name>: <what>: ok" or
"<name>: <what>: FAILED (detail)" (quiet: failures only), and at the end
the count line tests/run.sh adds up, "<name>: N passed, N failed"."""

# A failure's detail past this is cut: a whole result set helps no one.
DETAIL_MAX = 1500


class Checks:
    def __init__(self, name, quiet=False):
        self.name = name
        self.quiet = quiet
        self.passed = 0
        self.failed = []

    def expect(self, what, ok, detail=""):
        """Counts one check; ok is returned, so that a caller may stop."""
        if ok:
            self.passed += 1
            if not self.quiet:
                print("%s: %s: ok" % (self.name, what), flush=True)
        else:
            self.failed.append(what)
            print("%s: %s: FAILED%s" % (self.name, what,
                                        " (%.*s)" % (DETAIL_MAX, detail) if detail != "" else ""),
                  flush=True)
        return ok

    def end(self):
        """Prints the count line; the exit status (1 if any failed)."""
        print("%s: %d passed, %d failed" % (self.name, self.passed, len(self.failed)), flush=True)
        return 1 if self.failed else 0
