# An allocation-heavy Perl workload for bench/runtime-bench.sh: Debian's
# perl uses the system malloc (`perl -V:usemymalloc` is 'n'), so every
# string, hash entry and array it makes is a malloc/free. About 2.1 million
# allocation calls (heaptrack's count), 190 MB peak heap.
use strict;
use warnings;

my (%h, @a);
for my $i (1 .. 300000) {
  my $k = "key$i" x 3;
  $h{$k} = [$i, "v$i"];
  push @a, {n => $i};
}
my $s = 0;
for my $k (sort keys %h) {
  $s += $h{$k}[0];
  delete $h{$k} if $s % 3;
}
my $t = join(",", map { $_->{n} } @a);
print length($t), " $s\n";
