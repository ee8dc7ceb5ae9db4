# Answers hello, then on its first request says why on stderr (the second line with a terminal
# escape sequence, which must reach nobody's terminal) and exits with code 255, as a Perl bot
# that dies does. Plain Perl, no modules: it starts in milliseconds.
$| = 1;
if ($ENV{HOSTILE_PIDFILE}) {
    open(my $pids, '>>', $ENV{HOSTILE_PIDFILE}) or die "pid file: $!";
    print $pids "$$\n";
    close($pids);
}
while (my $line = <STDIN>) {
    if ($line =~ /"type"\s*:\s*"hello"/) {
        print "{\"type\":\"ready\",\"protocol_version\":1,\"name\":\"crashy\"}\n";
    } elsif ($line =~ /"type"\s*:\s*"request"/) {
        print STDERR "crashy: thinking about the first move\n";
        print STDERR "Can't locate object method \"think\" \e]0;pwned\a at crash_first.pl line 15.\n";
        exit 255;
    }
}
