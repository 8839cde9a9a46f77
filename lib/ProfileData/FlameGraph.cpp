//===- FlameGraph.cpp - Folded stacks and an interactive SVG flame graph --===//
//
// Both pictures are drawn from a Report holding every context, each frame
// named by frameLabel. The folded text is what flamegraph.pl, inferno and
// speedscope read; the SVG is our own (written from scratch, not derived
// from flamegraph.pl) and needs nothing outside the file: no fonts, scripts
// or URLs. Both are byte-identical for the same report: children and lines
// are sorted by name, colours come from a fixed hash of the name, and
// coordinates are printed with a fixed precision.
//
//===----------------------------------------------------------------------===//
#include "memprof/ProfileData/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Allocator.h"
#include <algorithm>
#include <optional>
#include <unordered_map>

using namespace llvm;

namespace memprof {

namespace {

/// A frame's label with what a line-based format cannot hold replaced:
/// control characters (newlines, tabs) become spaces and the result is
/// trimmed, so no name ends in a space before the weight or is empty;
/// invalid UTF-8 is repaired.
std::string cleanLabel(StringRef Label) {
  // Names come from files: keep every output valid UTF-8.
  std::string S = validUTF8(Label);
  for (char &C : S)
    if (static_cast<unsigned char>(C) < 0x20)
      C = ' ';
  StringRef T = StringRef(S).trim(' ');
  return T.empty() ? std::string("?") : T.str();
}

/// The label as one element of a folded stack: ';' separates frames there,
/// so a ';' inside a name (an operator, a path) becomes ':'.
std::string foldedLabel(StringRef Label) {
  std::string S = cleanLabel(Label);
  std::replace(S.begin(), S.end(), ';', ':');
  return S;
}

} // namespace

namespace {

/// Interned labels: a stack is a sequence of label ids, and equal labels
/// (frames that differ in lines or columns, or in what short names fold)
/// have one id.
class LabelIds {
public:
  uint32_t intern(std::string S) {
    auto [It, New] = Ids.try_emplace(S, uint32_t(Text.size()));
    if (New)
      Text.push_back(It->first());
    return It->second;
  }
  StringRef text(uint32_t Id) const { return Text[Id]; }
  size_t size() const { return Text.size(); }
  /// Each label's rank in bytewise order: children and lines sort by it.
  std::vector<uint32_t> ranks() const {
    std::vector<uint32_t> Order(Text.size());
    for (uint32_t I = 0; I < Order.size(); ++I)
      Order[I] = I;
    llvm::sort(Order, [&](uint32_t A, uint32_t B) { return Text[A] < Text[B]; });
    std::vector<uint32_t> Rank(Text.size());
    for (uint32_t I = 0; I < Order.size(); ++I)
      Rank[Order[I]] = I;
    return Rank;
  }

private:
  StringMap<uint32_t> Ids;
  std::vector<StringRef> Text; // owned by Ids
};

/// Calls \p Progress every 4096 contexts and at the end.
void tick(ProgressFn Progress, size_t Done, size_t Total) {
  if (Progress && (Done % 4096 == 0 || Done == Total))
    Progress(Done, Total);
}

} // namespace

void writeFolded(const Report &R, Weight W, bool FullNames, raw_ostream &OS,
                 ProgressFn Progress) {
  ContextFrames Frames(R);
  FrameLabels Labels(Frames, FullNames);
  LabelIds Ids;
  std::vector<uint32_t> LabelOf(Frames.size(), UINT32_MAX);
  auto Label = [&](uint32_t F) {
    if (LabelOf[F] == UINT32_MAX)
      LabelOf[F] = Ids.intern(foldedLabel(Labels[F]));
    return LabelOf[F];
  };
  // Keyed by the stack's labels: identical stacks (contexts that differ
  // only in lines, columns or the template arguments short names fold) are
  // summed. A label holds no ';', so distinct sequences are distinct lines;
  // an empty stack is written as the one label "(no frames)".
  BumpPtrAllocator Keys;
  DenseMap<ArrayRef<uint32_t>, uint64_t> Sums;
  std::vector<ArrayRef<uint32_t>> Order; // first appearance
  std::vector<uint32_t> Key;
  for (size_t I = 0; I < R.Contexts.size(); ++I) {
    tick(Progress, I, R.Contexts.size());
    uint64_t V = weightOf(R.Contexts[I], W);
    if (V == 0)
      continue;
    ArrayRef<uint32_t> Fs = Frames.of(I);
    Key.clear();
    for (auto It = Fs.rbegin(); It != Fs.rend(); ++It)
      Key.push_back(Label(*It));
    if (Key.empty())
      Key.push_back(Ids.intern("(no frames)"));
    auto Found = Sums.find(Key);
    if (Found != Sums.end()) {
      Found->second = SaturatingAdd(Found->second, V);
      continue;
    }
    uint32_t *Copy = Keys.Allocate<uint32_t>(Key.size());
    std::copy(Key.begin(), Key.end(), Copy);
    ArrayRef<uint32_t> Stored(Copy, Key.size());
    Sums.try_emplace(Stored, V);
    Order.push_back(Stored);
  }
  tick(Progress, R.Contexts.size(), R.Contexts.size());

  // The lines sorted by their stacks' bytes (the labels joined by ';'),
  // compared label by label without joining them: at the first label that
  // differs, its bytes decide, unless one label is a prefix of the other;
  // then what follows the shorter one in its line (';' before a next label,
  // or the end of the stack) decides. No label holds ';'.
  auto Less = [&](ArrayRef<uint32_t> A, ArrayRef<uint32_t> B) {
    size_t N = std::min(A.size(), B.size()), I = 0;
    while (I < N && A[I] == B[I])
      ++I;
    if (I == N)
      return A.size() < B.size();
    StringRef X = Ids.text(A[I]), Y = Ids.text(B[I]);
    size_t Common = std::min(X.size(), Y.size());
    if (int C = X.take_front(Common).compare(Y.take_front(Common)))
      return C < 0;
    if (X.size() < Y.size()) // X ends first
      return I + 1 == A.size() || ';' < static_cast<unsigned char>(Y[Common]);
    return I + 1 != B.size() && static_cast<unsigned char>(X[Common]) < ';';
  };
  llvm::sort(Order, Less);
  for (ArrayRef<uint32_t> S : Order) {
    for (size_t I = 0; I < S.size(); ++I) {
      if (I)
        OS << ';';
      OS << Ids.text(S[I]);
    }
    OS << ' ' << Sums.find(S)->second << '\n';
  }
}

//===----------------------------------------------------------------------===//
// Flame graph
//===----------------------------------------------------------------------===//

namespace {

// The picture's geometry in SVG user units (pixels at 100%).
constexpr unsigned ImageWidth = 1200;
constexpr unsigned SidePad = 10;
constexpr unsigned DrawWidth = ImageWidth - 2 * SidePad;
constexpr unsigned FrameHeight = 16;  // a 15-unit box and a 1-unit gap
constexpr unsigned HeaderHeight = 84; // title, subtitle, legend
constexpr unsigned FooterHeight = 30; // the details line
// Frame text is monospace so that its width can be known here without
// font metrics: 12px DejaVu Sans Mono (what Debian's browsers pick for
// "monospace") advances 7.22 units a character; a little more is assumed so
// that labels never overflow their box in a wider monospace font.
constexpr double CharWidth = 7.3;
constexpr unsigned TextInset = 3;
// Frames under this share of the total (1/1000) are not drawn, with all
// they hold: at 1180 units they would be about a unit wide. Their weight
// stays in their parents' width, as flamegraph.pl's --minwidth leaves it.
constexpr uint64_t MinShareInverse = 1000;

struct Node {
  uint32_t Label = 0; // in Tree::Labels
  bool Gap = false;
  bool Type = false; // the pseudo-frame [T] of an allocated type
  uint32_t Size = 1; // the nodes of its subtree, itself included
  uint64_t Total = 0;
  uint64_t Cold = 0;
  /// The first full name met (Tree::FullNames has any others) and the
  /// first context that has it; UINT32_MAX when none.
  uint32_t Full = UINT32_MAX, FullFirst = UINT32_MAX;
};

/// The call tree of every context, root first, its nodes in depth-first
/// order with each node's children sorted by label (so the picture does not
/// depend on the order of the report's contexts): node 0 is "all", a node's
/// first child follows it, and each next child follows the previous one's
/// subtree. Built by sorting the contexts' stacks, which lists the tree's
/// paths in that order: no lookup per frame.
struct Tree {
  LabelIds Labels;
  std::vector<Node> Nodes;
  /// The full names behind a node's short label (several when the short
  /// names of different instantiations or overloads coincide), with the
  /// first context (in the report's order) that has each: the tooltip
  /// lists the first 64 met, as a walk of the contexts in order meets them.
  std::unordered_map<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>>
      FullNames;
  bool AnyClass = false; // some context was classified
  uint64_t Contexts = 0; // contexts of non-zero weight

  /// One context to add: its frames' labels root first (ranks of the
  /// labels, once build() sorts), their full names and gap flags.
  struct Stack {
    uint64_t Begin;
    uint32_t Size;
    uint32_t Index; // in the report
    uint64_t Weight;
    bool Cold;
  };
  std::vector<Stack> Stacks;
  std::vector<uint32_t> Seq, Full;
  std::vector<bool> Gap, Type;

  void add(const ReportContext &C, size_t Index, uint64_t V) {
    AnyClass |= C.Class.has_value();
    ++Contexts;
    Stacks.push_back({Begin, uint32_t(Seq.size() - Begin), uint32_t(Index), V,
                      C.Class == AllocClass::Cold});
    Begin = Seq.size();
  }

  void build() {
    std::vector<uint32_t> Rank = Labels.ranks();
    std::vector<uint32_t> ByRank(Rank.size());
    for (uint32_t L = 0; L < Rank.size(); ++L)
      ByRank[Rank[L]] = L;
    for (uint32_t &L : Seq)
      L = Rank[L];
    auto Span = [&](const Stack &S) {
      return ArrayRef<uint32_t>(Seq).slice(S.Begin, S.Size);
    };
    llvm::sort(Stacks, [&](const Stack &A, const Stack &B) {
      ArrayRef<uint32_t> X = Span(A), Y = Span(B);
      if (std::lexicographical_compare(X.begin(), X.end(), Y.begin(), Y.end()))
        return true;
      return X == Y && A.Index < B.Index;
    });

    Nodes.emplace_back().Label = Labels.intern("all");
    std::vector<uint32_t> Parent{0};
    std::vector<uint32_t> Path{0}; // the previous stack's nodes
    ArrayRef<uint32_t> Prev;
    for (const Stack &S : Stacks) {
      ArrayRef<uint32_t> X = Span(S);
      size_t Common = 0;
      while (Common < X.size() && Common < Prev.size() &&
             X[Common] == Prev[Common])
        ++Common;
      Path.resize(Common + 1);
      for (size_t K = Common; K < X.size(); ++K) {
        Parent.push_back(Path.back());
        Path.push_back(uint32_t(Nodes.size()));
        Nodes.emplace_back().Label = ByRank[X[K]];
      }
      Prev = X;
      for (size_t K = 0; K < Path.size(); ++K) {
        Node &N = Nodes[Path[K]];
        N.Total = SaturatingAdd(N.Total, S.Weight);
        if (S.Cold)
          N.Cold = SaturatingAdd(N.Cold, S.Weight);
        if (K == 0)
          continue;
        N.Gap = N.Gap || Gap[S.Begin + K - 1];
        N.Type = N.Type || Type[S.Begin + K - 1];
        if (!Full.empty())
          addFull(Path[K], Full[S.Begin + K - 1], S.Index);
      }
    }
    // Subtree sizes: a node's parent precedes it.
    for (size_t I = Nodes.size(); I-- > 1;)
      Nodes[Parent[I]].Size += Nodes[I].Size;
  }

  void addFull(uint32_t I, uint32_t F, uint32_t Index) {
    Node &N = Nodes[I];
    if (N.Full == UINT32_MAX || N.Full == F) {
      N.Full = F;
      N.FullFirst = std::min(N.FullFirst, Index);
      return;
    }
    auto &More = FullNames[I];
    for (auto &[Name, First] : More)
      if (Name == F) {
        First = std::min(First, Index);
        return;
      }
    More.push_back({F, Index});
  }

  /// The full names of node \p I the tooltip knows, sorted.
  std::vector<StringRef> fullNames(uint32_t I) const {
    std::vector<StringRef> Out;
    const Node &N = Nodes[I];
    if (N.Full == UINT32_MAX)
      return Out;
    std::vector<std::pair<uint32_t, uint32_t>> Names{{N.Full, N.FullFirst}};
    if (auto It = FullNames.find(I); It != FullNames.end())
      Names.insert(Names.end(), It->second.begin(), It->second.end());
    llvm::sort(Names, [](const auto &A, const auto &B) {
      return A.second != B.second ? A.second < B.second : A.first < B.first;
    });
    for (size_t K = 0; K < Names.size() && K < 64; ++K)
      Out.push_back(Labels.text(Names[K].first));
    llvm::sort(Out);
    return Out;
  }

  /// Node \p I's children, left to right.
  template <typename Fn> void forEachChild(uint32_t I, Fn &&F) const {
    for (uint32_t C = I + 1; C < I + Nodes[I].Size; C += Nodes[C].Size)
      F(C);
  }

private:
  uint64_t Begin = 0;
};

std::string xml(StringRef S) { return xmlText(S); }

/// How many characters (code points) \p S holds; \p S is valid UTF-8.
size_t charCount(StringRef S) {
  size_t N = 0;
  for (char C : S)
    N += (static_cast<unsigned char>(C) & 0xC0) != 0x80;
  return N;
}

/// The first \p N characters of \p S.
StringRef firstChars(StringRef S, size_t N) {
  for (size_t I = 0; I < S.size(); ++I)
    if ((static_cast<unsigned char>(S[I]) & 0xC0) != 0x80 && N-- == 0)
      return S.take_front(I);
  return S;
}

/// The label as it fits a box \p Width units wide: whole, cut with "..",
/// or nothing when not even three characters fit. The script's fit() does
/// the same when zooming.
std::string fitLabel(StringRef Label, double Width) {
  double Room = (Width - 2 * TextInset) / CharWidth;
  if (Room < 3)
    return "";
  size_t Chars = static_cast<size_t>(Room);
  if (charCount(Label) <= Chars)
    return Label.str();
  return firstChars(Label, Chars - 2).str() + "..";
}

/// A fixed 64-bit FNV-1a hash: colours must not change between runs,
/// builds or platforms (std::hash may).
uint64_t fnv1a(StringRef S) {
  uint64_t H = 0xcbf29ce484222325ULL;
  for (char C : S) {
    H ^= static_cast<unsigned char>(C);
    H *= 0x100000001b3ULL;
  }
  return H;
}

enum class Palette { Warm, Cold, Gap, Type };

/// A colour of the palette picked by the name's hash, so that a function
/// keeps its colour across the picture and across profiles. Integer
/// arithmetic: the same bytes everywhere.
std::string colour(Palette P, StringRef Name) {
  uint64_t H = fnv1a(Name);
  unsigned A = H & 0xFF, B = (H >> 8) & 0xFF, C = (H >> 16) & 0xFF;
  unsigned R, G, Bl;
  switch (P) {
  case Palette::Warm: // red through orange to yellow
    R = 205 + 50 * A / 255;
    G = 60 + 170 * B / 255;
    Bl = 55 * C / 255;
    break;
  case Palette::Cold: // blues; blue leads red and green by at least 30
    R = 20 + 70 * A / 255;
    G = 90 + 80 * B / 255;
    Bl = 200 + 55 * C / 255;
    break;
  case Palette::Gap: // greys
    R = G = Bl = 170 + 40 * A / 255;
    break;
  case Palette::Type: // greens; green leads red and blue by at least 40
    R = 70 + 70 * A / 255;
    G = 180 + 60 * B / 255;
    Bl = 70 + 60 * C / 255;
    break;
  }
  return ("rgb(" + Twine(R) + "," + Twine(G) + "," + Twine(Bl) + ")").str();
}

/// What one unit of the weight is called in the picture.
StringRef unitName(Weight W) {
  switch (W) {
  case Weight::Bytes:
    return "bytes";
  case Weight::Count:
    return "allocations";
  case Weight::Accesses:
    return "accesses";
  case Weight::Lifetime:
    return "ms of lifetime";
  case Weight::PeakBytes:
  case Weight::LiveBytes:
    return "bytes";
  case Weight::PeakBlocks:
  case Weight::LiveBlocks:
    return "blocks";
  }
  return "";
}

std::string percent(uint64_t Part, uint64_t Whole) {
  double P = Whole ? 100.0 * double(Part) / double(Whole) : 0.0;
  return formatv("{0:F2}%", P).str();
}

std::string coord(double V) { return formatv("{0:F2}", V).str(); }

/// The script: zoom on click (ancestors stretched and faded, everything
/// else hidden; "Reset Zoom", a click on "all" or Escape undoes it), search
/// by regular expression (Ctrl-F or the Search button; matches in magenta
/// and the share of the total whose stacks hold a match, each context
/// counted once), and the details of the frame under the mouse. "?z=RE" in
/// the file's URL zooms on the first frame (in the file's order) whose name
/// matches, "?s=RE" searches: links can point at a view, and a headless
/// browser can check both. Only numbers are written into the script from
/// C++, never names.
constexpr StringLiteral Script = R"js(
(function () {
  "use strict";
  var frames = document.getElementById("frames");
  var details = document.getElementById("details");
  var unzoomButton = document.getElementById("unzoom");
  var searchButton = document.getElementById("search");
  var matched = document.getElementById("matched");
  var all = Array.prototype.slice.call(frames.querySelectorAll("g.f"));
  var fills = all.map(function (g) {
    return g.querySelector("rect").getAttribute("fill");
  });
  var searching = false;

  function num(g, name) { return parseFloat(g.getAttribute(name)); }
  function fit(label, width) {
    var room = Math.floor((width - 2 * TextInset) / CharWidth);
    if (room < 3) return "";
    var chars = Array.from(label);
    if (chars.length <= room) return label;
    return chars.slice(0, room - 2).join("") + "..";
  }
  function place(g, x, width) {
    var r = g.querySelector("rect"), t = g.querySelector("text");
    r.setAttribute("x", x.toFixed(2));
    r.setAttribute("width", width.toFixed(2));
    t.setAttribute("x", (x + TextInset).toFixed(2));
    t.textContent = fit(g.getAttribute("data-n"), width);
  }
  function zoom(z) {
    var zo = num(z, "data-o"), zw = num(z, "data-w"), zl = num(z, "data-l");
    all.forEach(function (g) {
      var o = num(g, "data-o"), w = num(g, "data-w"), l = num(g, "data-l");
      g.classList.remove("p", "hide");
      if (l < zl && o <= zo && o + w >= zo + zw) {
        g.classList.add("p");
        place(g, SidePad, DrawWidth);
      } else if (l >= zl && o >= zo && o + w <= zo + zw) {
        place(g, SidePad + (o - zo) / zw * DrawWidth, w / zw * DrawWidth);
      } else {
        g.classList.add("hide");
      }
    });
    unzoomButton.classList.remove("hide");
  }
  function unzoom() {
    all.forEach(function (g) {
      g.classList.remove("p", "hide");
      place(g, SidePad + num(g, "data-o") / Total * DrawWidth,
            num(g, "data-w") / Total * DrawWidth);
    });
    unzoomButton.classList.add("hide");
  }
  function resetSearch() {
    all.forEach(function (g, i) {
      g.querySelector("rect").setAttribute("fill", fills[i]);
    });
    matched.textContent = " ";
    searchButton.textContent = "Search";
    searching = false;
  }
  function doSearch(term) {
    var re;
    try { re = new RegExp(term); } catch (e) {
      window.alert("Not a regular expression: " + e.message);
      return;
    }
    resetSearch();
    var hits = [];
    all.forEach(function (g) {
      if (!re.test(g.getAttribute("data-n"))) return;
      g.querySelector("rect").setAttribute("fill", "rgb(230,0,230)");
      hits.push([num(g, "data-o"), num(g, "data-w")]);
    });
    // The union of the matching frames' spans: a match nested in another
    // counts once.
    hits.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });
    var sum = 0, end = 0;
    hits.forEach(function (h) {
      var e = h[0] + h[1];
      if (e > end) { sum += e - Math.max(end, h[0]); end = e; }
    });
    matched.textContent = "Matched: " + (100 * sum / Total).toFixed(2) + "%";
    searchButton.textContent = "Reset Search";
    searching = true;
  }
  function search() {
    if (searching) { resetSearch(); return; }
    var term = window.prompt("Search frames (a regular expression):", "");
    if (term) doSearch(term);
  }
  function frameOf(e) { return e.target.closest ? e.target.closest("g.f") : null; }

  frames.addEventListener("click", function (e) {
    var g = frameOf(e);
    if (!g) return;
    if (g.getAttribute("data-l") === "0") unzoom(); else zoom(g);
  });
  frames.addEventListener("mouseover", function (e) {
    var g = frameOf(e);
    if (g) details.textContent = g.querySelector("title").textContent.replace(/\n/g, "; ");
  });
  frames.addEventListener("mouseout", function () { details.textContent = " "; });
  unzoomButton.addEventListener("click", unzoom);
  searchButton.addEventListener("click", search);
  window.addEventListener("keydown", function (e) {
    if ((e.ctrlKey || e.metaKey) && e.key === "f") {
      e.preventDefault();
      search();
    } else if (e.key === "Escape") {
      resetSearch();
      unzoom();
    }
  });
  // The URL can ask for a zoom and a search at load: "?z=RE&s=RE".
  var z = /[?&]z=([^&]*)/.exec(window.location.search);
  if (z) {
    try {
      var zre = new RegExp(decodeURIComponent(z[1]));
      var hit = all.filter(function (g) { return zre.test(g.getAttribute("data-n")); })[0];
      if (hit) zoom(hit);
    } catch (e) {}
  }
  var s = /[?&]s=([^&]*)/.exec(window.location.search);
  if (s) doSearch(decodeURIComponent(s[1]));
})();
)js";

constexpr StringLiteral Style = R"css(
text { font-family: sans-serif; font-size: 12px; fill: rgb(0,0,0); }
#title { font-size: 17px; text-anchor: middle; }
#subtitle { text-anchor: middle; }
#frames text { font-family: monospace; pointer-events: none; }
#frames g.f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; }
#frames g.f, .button { cursor: pointer; }
.button { fill: rgb(0,0,160); }
.hide { display: none; }
.p { opacity: 0.5; }
)css";

/// The SVG's opening, style and title lines, common to an empty and a
/// drawn picture.
void writeHeader(raw_ostream &OS, unsigned Height, StringRef Title,
                 StringRef Subtitle) {
  OS << "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n";
  // The namespace name identifies SVG; nothing is fetched from it.
  OS << "<svg version=\"1.1\" width=\"" << ImageWidth << "\" height=\""
     << Height << "\" viewBox=\"0 0 " << ImageWidth << " " << Height
     << "\" xmlns=\"http://www.w3.org/2000/svg\">\n";
  OS << "<style>" << Style << "</style>\n";
  OS << "<rect x=\"0\" y=\"0\" width=\"" << ImageWidth << "\" height=\""
     << Height << "\" fill=\"rgb(255,255,255)\"/>\n";
  OS << "<text id=\"title\" x=\"" << ImageWidth / 2 << "\" y=\"24\">"
     << xml(Title) << "</text>\n";
  OS << "<text id=\"subtitle\" x=\"" << ImageWidth / 2 << "\" y=\"44\">"
     << xml(Subtitle) << "</text>\n";
}

/// One frame: a <g> holding its <title> (the tooltip), box and label. The
/// data-* attributes give the script the frame's span in weight units and
/// its depth, from which it redraws any zoom.
void writeFrame(raw_ostream &OS, const Tree &T, uint32_t I, uint64_t Offset,
                unsigned Depth, uint64_t Total, unsigned Height, Weight W,
                bool ShowCold) {
  const Node &N = T.Nodes[I];
  StringRef Label = T.Labels.text(N.Label);
  double X = SidePad + double(Offset) / double(Total) * DrawWidth;
  double Width = double(N.Total) / double(Total) * DrawWidth;
  unsigned Y = Height - FooterHeight - (Depth + 1) * FrameHeight;
  Palette P = N.Type                      ? Palette::Type
              : N.Gap                     ? Palette::Gap
              : N.Cold > N.Total - N.Cold ? Palette::Cold
                                          : Palette::Warm;

  std::string Tip = xml(Label);
  if (N.Type)
    Tip += "\nallocated type: " + xml(Label.drop_front().drop_back()) +
           " (the contexts below allocate it)";
  size_t Shown = 0;
  for (StringRef Full : T.fullNames(I)) {
    if (Full == Label)
      continue;
    if (Shown++ == 3) {
      Tip += "\n(and others)";
      break;
    }
    Tip += "\n" + xml(Full);
  }
  Tip += "\n" + utostr(N.Total) + " " + unitName(W).str() + ", " +
         percent(N.Total, Total) + " of all";
  if (ShowCold)
    Tip += "\n" + percent(N.Cold, N.Total) + " from cold contexts";

  OS << "<g class=\"f\" data-n=\"" << xml(Label) << "\" data-o=\"" << Offset
     << "\" data-w=\"" << N.Total << "\" data-l=\"" << Depth << "\">"
     << "<title>" << Tip << "</title>"
     << "<rect x=\"" << coord(X) << "\" y=\"" << Y << "\" width=\""
     << coord(Width) << "\" height=\"" << FrameHeight - 1 << "\" fill=\""
     << colour(P, Label) << "\" rx=\"2\" ry=\"2\"/>"
     << "<text x=\"" << coord(X + TextInset) << "\" y=\"" << Y + 11 << "\">"
     << xml(fitLabel(Label, Width)) << "</text></g>\n";
}

} // namespace

void writeFlameGraph(const Report &R, const FlameGraphOptions &O,
                     raw_ostream &OS, ProgressFn Progress) {
  Tree T;
  {
    // Each frame's label (and full name, with short labels) interned once.
    ContextFrames Frames(R);
    FrameLabels Labels(Frames, O.FullNames);
    std::optional<FrameLabels> Full;
    if (!O.FullNames)
      Full.emplace(Frames, /*FullNames=*/true);
    std::vector<uint32_t> LabelOf(Frames.size(), UINT32_MAX);
    std::vector<uint32_t> FullOf(O.FullNames ? 0 : Frames.size(), UINT32_MAX);
    for (size_t I = 0; I < R.Contexts.size(); ++I) {
      tick(Progress, I, R.Contexts.size());
      const ReportContext &C = R.Contexts[I];
      uint64_t V = weightOf(C, O.W);
      if (!V)
        continue;
      ArrayRef<uint32_t> Fs = Frames.of(I);
      for (auto It = Fs.rbegin(); It != Fs.rend(); ++It) {
        uint32_t F = *It;
        if (LabelOf[F] == UINT32_MAX)
          LabelOf[F] = T.Labels.intern(cleanLabel(Labels[F]));
        T.Seq.push_back(LabelOf[F]);
        T.Gap.push_back(Frames.frame(F).Gap.has_value());
        T.Type.push_back(false);
        if (Full) {
          if (FullOf[F] == UINT32_MAX)
            FullOf[F] = T.Labels.intern(cleanLabel((*Full)[F]));
          T.Full.push_back(FullOf[F]);
        }
      }
      // The allocated type, where known, as a last pseudo-frame [T] above
      // the allocation site: as wide as what the site allocates of it.
      if (!C.Type.empty()) {
        uint32_t L = T.Labels.intern(cleanLabel(
            "[" + (O.FullNames ? C.Type : briefTypeName(C.Type)) + "]"));
        T.Seq.push_back(L);
        T.Gap.push_back(false);
        T.Type.push_back(true);
        if (Full) // the tooltip's full name
          T.Full.push_back(T.Labels.intern(cleanLabel("[" + C.Type + "]")));
      }
      T.add(C, I, V);
    }
    tick(Progress, R.Contexts.size(), R.Contexts.size());
  }
  T.build();
  const Node &Root = T.Nodes[0];
  const uint64_t Total = Root.Total;
  const std::string Field = weightSource(O.W);

  if (Total == 0) {
    // Nothing to draw: say why rather than write an empty picture.
    const std::optional<MIBTag> Tag = weightField(O.W);
    bool Stored = Tag ? (knownFields(R) & (1u << (unsigned(*Tag) - 1))) != 0
                      : R.Heap.has_value();
    std::string Why = R.Contexts.empty()
                          ? "the profile holds no allocation contexts"
                      : Stored ? "every context's " + Field + " is 0"
                               : "the profile does not store " + Field;
    unsigned Height = HeaderHeight + FooterHeight;
    writeHeader(OS, Height, O.Title,
                "No " + weightName(O.W).str() + " to draw: " + Why);
    OS << "</svg>\n";
    return;
  }

  // Which frames are drawn, in depth-first order (parents first) with
  // their offsets; without recursion, since stacks may be thousands deep.
  struct Placed {
    uint32_t Node;
    uint64_t Offset;
    unsigned Depth;
  };
  std::vector<Placed> Drawn;
  uint64_t NotDrawn = 0;
  unsigned MaxDepth = 0;
  std::vector<Placed> Work{{0, 0, 0}};
  while (!Work.empty()) {
    Placed P = Work.back();
    Work.pop_back();
    Drawn.push_back(P);
    MaxDepth = std::max(MaxDepth, P.Depth);
    // Children left to right; pushed in reverse so the leftmost is drawn
    // first.
    std::vector<Placed> Kids;
    uint64_t Offset = P.Offset;
    T.forEachChild(P.Node, [&](uint32_t I) {
      const Node &C = T.Nodes[I];
      // Integer comparison: C.Total / Total < 1 / MinShareInverse.
      if (C.Total < Total / MinShareInverse + (Total % MinShareInverse != 0))
        ++NotDrawn;
      else
        Kids.push_back({I, Offset, P.Depth + 1});
      Offset = SaturatingAdd(Offset, C.Total);
    });
    Work.insert(Work.end(), Kids.rbegin(), Kids.rend());
  }

  const unsigned Height =
      HeaderHeight + (MaxDepth + 1) * FrameHeight + FooterHeight;
  std::string Subtitle = weightName(O.W).str() + " (" + Field +
                         "): " + utostr(Total) + " " + unitName(O.W).str() +
                         " in " + utostr(T.Contexts) + " contexts";
  if (T.AnyClass)
    Subtitle += ", " + percent(Root.Cold, Total) + " from cold contexts";
  writeHeader(OS, Height, O.Title, Subtitle);

  // The legend: what the colours say, each with a typical colour of its
  // palette.
  const std::pair<StringLiteral, StringLiteral> Legend[] = {
      {"rgb(235,140,30)", "mostly from contexts not classified cold"},
      {"rgb(50,130,230)", "mostly from cold contexts"},
      {"rgb(190,190,190)", "not symbolized (?? frames)"},
  };
  unsigned LegendX = SidePad;
  for (const auto &[Fill, Text] : Legend) {
    OS << "<rect x=\"" << LegendX << "\" y=\"56\" width=\"12\" height=\"12\" "
       << "fill=\"" << Fill << "\"/>";
    OS << "<text x=\"" << LegendX + 16 << "\" y=\"66\">" << Text << "</text>\n";
    LegendX += 300;
  }
  OS << "<text x=\"" << ImageWidth - SidePad
     << "\" y=\"66\" style=\"text-anchor:end\">"
     << (NotDrawn ? utostr(NotDrawn) +
                        " frames under 0.1% not drawn, with their callees"
                  : std::string(" "))
     << "</text>\n";
  // Controls: the script shows "Reset Zoom" once zoomed.
  OS << "<text id=\"unzoom\" class=\"button hide\" x=\"" << SidePad
     << "\" y=\"24\">Reset Zoom</text>\n";
  OS << "<text id=\"search\" class=\"button\" x=\"" << ImageWidth - SidePad
     << "\" y=\"24\" style=\"text-anchor:end\">Search</text>\n";
  OS << "<text id=\"details\" x=\"" << SidePad << "\" y=\"" << Height - 10
     << "\"> </text>\n";
  OS << "<text id=\"matched\" x=\"" << ImageWidth - SidePad << "\" y=\""
     << Height - 10 << "\" style=\"text-anchor:end\"> </text>\n";

  OS << "<g id=\"frames\">\n";
  for (const Placed &P : Drawn)
    writeFrame(OS, T, P.Node, P.Offset, P.Depth, Total, Height, O.W,
               T.AnyClass);
  OS << "</g>\n";

  // The geometry the script shares with this file, then the script. CDATA
  // keeps '<' and '&' in it literal; it holds no "]]>".
  OS << "<script type=\"text/ecmascript\"><![CDATA[\n"
     << "var Total = " << Total << ", SidePad = " << SidePad
     << ", DrawWidth = " << DrawWidth << ", TextInset = " << TextInset
     << ", CharWidth = " << coord(CharWidth) << ";" << Script
     << "]]></script>\n";
  OS << "</svg>\n";
}

} // namespace memprof
