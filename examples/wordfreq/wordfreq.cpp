// wordfreq: the bundled example program. Counts word frequencies of a
// generated text with a few typical heap patterns: a hash map that grows,
// short-lived temporary strings, a long-lived index, and a sorted report.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

std::vector<std::string> makeVocabulary(unsigned Size, unsigned Seed) {
  std::vector<std::string> Words;
  srand(Seed);
  for (unsigned I = 0; I < Size; ++I) {
    std::string W;
    unsigned Len = 3 + rand() % 12;
    for (unsigned J = 0; J < Len; ++J)
      W.push_back('a' + rand() % 26);
    Words.push_back(W);
  }
  return Words;
}

std::string makeText(const std::vector<std::string> &Vocab, unsigned NumWords) {
  std::string Text;
  for (unsigned I = 0; I < NumWords; ++I) {
    // Zipf-like choice: low indices are frequent.
    unsigned R = rand() % Vocab.size();
    unsigned Idx = R * R / Vocab.size();
    Text += Vocab[Idx];
    Text.push_back(' ');
  }
  return Text;
}

std::unordered_map<std::string, unsigned> countWords(const std::string &Text) {
  std::unordered_map<std::string, unsigned> Counts;
  size_t Pos = 0;
  while (Pos < Text.size()) {
    size_t End = Text.find(' ', Pos);
    std::string Word = Text.substr(Pos, End - Pos); // a short-lived temporary
    ++Counts[Word];
    Pos = End + 1;
  }
  return Counts;
}

} // namespace

int main(int argc, char **argv) {
  unsigned Scale = argc > 1 ? atoi(argv[1]) : 1;
  auto Vocab = makeVocabulary(2000 * Scale, 42 + Scale);
  std::string Text = makeText(Vocab, 50000 * Scale);
  auto Counts = countWords(Text);
  std::vector<std::pair<unsigned, std::string>> Sorted;
  for (auto &KV : Counts)
    Sorted.push_back({KV.second, KV.first});
  std::sort(Sorted.rbegin(), Sorted.rend());
  printf("scale %u: %zu distinct words; most frequent:", Scale, Sorted.size());
  for (size_t I = 0; I < 3 && I < Sorted.size(); ++I)
    printf(" %s(%u)", Sorted[I].second.c_str(), Sorted[I].first);
  printf("\n");
  return 0;
}
