// memspy-mcdeps: what LLVM's scheduling model knows of each instruction's registers, for the
// recurrence of a loop block (src/analysis/blockchain.c, docs/mtool.md "The core's latencies
// in a loop's chains"). It reads llvm-mca's input (AT&T text with "# LLVM-MCA-BEGIN NAME" /
// "# LLVM-MCA-END" regions), builds each instruction with llvm-mca's own InstrBuilder (LLVM 14's
// MCA library: the variant scheduling class resolved for the CPU, zero idioms and dependency-
// breaking instructions, the writes that clear their super-registers) and prints, per region
// and instruction, only facts; every decision stays in C:
//
//   region NAME
//   i LINE OPCODE LATENCY FLAGS [w UNIT CYCLES]... [r UNIT ADVANCE]...
//
// LINE: the instruction's line in the input; OPCODE: LLVM's opcode name (ADDSDrr,
// VFMADD231SDr); LATENCY: the instruction's latency in the model; FLAGS: "L" if it may load,
// "-" otherwise; w: a register unit it writes (named by its root register: RAX is AL, AH and
// HAX, XMM0..ZMM0 one unit) and that write's latency; r: a unit it reads, and the cycles the
// model lets the read wait (ReadAdvance: a folded load's register operand). Reads that a zero
// idiom or a dependency-breaking instruction does not depend on are not printed. A region's
// instruction that LLVM cannot build is printed as "x LINE". Usage:
//   memspy-mcdeps -mcpu=CPU [-mtriple=TRIPLE] FILE
// Exit 0, or 1 with a message on standard error. Thin by design: no exceptions, no RTTI.
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCInstrAnalysis.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCObjectFileInfo.h>
#include <llvm/MC/MCParser/MCAsmParser.h>
#include <llvm/MC/MCParser/MCTargetAsmParser.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCStreamer.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/MCA/InstrBuilder.h>
#include <llvm/MCA/Instruction.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace llvm;

namespace
{

// Collects the parsed instructions; everything else the parser emits is dropped.
class Collector final : public MCStreamer
{
  public:
    std::vector<MCInst> insts;
    explicit Collector(MCContext &ctx) : MCStreamer(ctx) {}
    void emitInstruction(const MCInst &inst, const MCSubtargetInfo &) override { insts.push_back(inst); }
    bool emitSymbolAttribute(MCSymbol *, MCSymbolAttr) override { return true; }
    void emitCommonSymbol(MCSymbol *, uint64_t, unsigned) override {}
    void emitZerofill(MCSection *, MCSymbol *, uint64_t, unsigned, SMLoc) override {}
    void emitGPRel32Value(const MCExpr *) override {}
    void BeginCOFFSymbolDef(const MCSymbol *) override {}
    void EmitCOFFSymbolStorageClass(int) override {}
    void EmitCOFFSymbolType(int) override {}
    void EndCOFFSymbolDef() override {}
};

// The region markers: line number (1-based) of each BEGIN and its name, and of each END.
struct Marker {
    unsigned line;
    bool begin;
    std::string name;
};

std::vector<Marker> markers(StringRef text)
{
    std::vector<Marker> out;
    unsigned line = 1;
    while (!text.empty()) {
        std::pair<StringRef, StringRef> l = text.split('\n');
        StringRef t = l.first.trim();
        if (t.startswith("#")) {
            t = t.drop_front().trim();
            if (t.startswith("LLVM-MCA-BEGIN"))
                out.push_back({ line, true, t.drop_front(14).trim().str() });
            else if (t.startswith("LLVM-MCA-END"))
                out.push_back({ line, false, "" });
        }
        text = l.second;
        line++;
    }
    return out;
}

// The ReadAdvance cycles of use index use_idx of scheduling class sc that apply to any writer.
int read_advance(const MCSubtargetInfo &sti, unsigned sc, unsigned use_idx)
{
    const MCSchedModel &sm = sti.getSchedModel();
    if (!sm.hasInstrSchedModel() || sc >= sm.NumSchedClasses) return 0;
    const MCSchedClassDesc *d = sm.getSchedClassDesc(sc);
    if (!d || !d->isValid() || d->isVariant()) return 0;
    int adv = 0;
    for (const MCReadAdvanceEntry &e : sti.getReadAdvanceEntries(*d))
        if (e.UseIdx == use_idx && e.WriteResourceID == 0 && e.Cycles > adv) adv = e.Cycles;
    return adv;
}

// The units of reg, each named by its root register.
void print_units(const MCRegisterInfo &mri, unsigned reg, char kind, int cycles)
{
    for (MCRegUnitIterator u(reg, &mri); u.isValid(); ++u) {
        MCRegUnitRootIterator root(*u, &mri);
        if (!root.isValid()) continue;
        std::printf(" %c %s %d", kind, mri.getName(*root), cycles);
    }
}

int fail(const std::string &msg)
{
    std::fprintf(stderr, "memspy-mcdeps: %s\n", msg.c_str());
    return 1;
}

} // namespace

int main(int argc, char **argv)
{
    std::string cpu = "generic", triple = "x86_64-unknown-linux-gnu", file;
    for (int i = 1; i < argc; i++) {
        StringRef a(argv[i]);
        if (a.startswith("-mcpu="))
            cpu = a.drop_front(6).str();
        else if (a.startswith("-mtriple="))
            triple = a.drop_front(9).str();
        else if (a.startswith("-"))
            return fail("unknown option " + a.str() + "; usage: memspy-mcdeps -mcpu=CPU [-mtriple=TRIPLE] FILE");
        else
            file = a.str();
    }
    if (file.empty()) return fail("usage: memspy-mcdeps -mcpu=CPU [-mtriple=TRIPLE] FILE");
    InitializeAllTargetInfos();
    InitializeAllTargetMCs();
    InitializeAllAsmParsers();
    std::string err;
    const Target *target = TargetRegistry::lookupTarget(triple, err);
    if (!target) return fail(err);
    ErrorOr<std::unique_ptr<MemoryBuffer>> buf = MemoryBuffer::getFileOrSTDIN(file);
    if (!buf) return fail("cannot read " + file + ": " + buf.getError().message());
    StringRef text = (*buf)->getBuffer();
    std::vector<Marker> regions = markers(text);

    MCTargetOptions opts;
    std::unique_ptr<MCRegisterInfo> mri(target->createMCRegInfo(triple));
    std::unique_ptr<MCAsmInfo> mai(target->createMCAsmInfo(*mri, triple, opts));
    std::unique_ptr<MCInstrInfo> mii(target->createMCInstrInfo());
    std::unique_ptr<MCSubtargetInfo> sti(target->createMCSubtargetInfo(triple, cpu, ""));
    if (!mri || !mai || !mii || !sti) return fail("no target description for " + triple);
    if (!sti->isCPUStringValid(cpu)) return fail("unknown CPU " + cpu);
    std::unique_ptr<MCInstrAnalysis> mcia(target->createMCInstrAnalysis(mii.get()));

    SourceMgr srcmgr;
    srcmgr.AddNewSourceBuffer(std::move(*buf), SMLoc());
    MCContext ctx(Triple(triple), mai.get(), mri.get(), sti.get(), &srcmgr);
    std::unique_ptr<MCObjectFileInfo> mofi(target->createMCObjectFileInfo(ctx, false));
    ctx.setObjectFileInfo(mofi.get());
    Collector str(ctx);
    std::unique_ptr<MCAsmParser> parser(createMCAsmParser(srcmgr, ctx, str, *mai));
    std::unique_ptr<MCTargetAsmParser> tap(target->createMCAsmParser(*sti, *parser, *mii, opts));
    if (!tap) return fail("no assembly parser for " + triple);
    parser->setTargetParser(*tap);
    if (parser->Run(false)) return fail("cannot parse " + file);

    mca::InstrBuilder ib(*sti, *mii, *mri, mcia.get());
    size_t next_marker = 0;
    for (const MCInst &mi : str.insts) {
        unsigned line = srcmgr.getLineAndColumn(mi.getLoc()).first;
        for (; next_marker < regions.size() && regions[next_marker].line < line; next_marker++)
            if (regions[next_marker].begin) std::printf("region %s\n", regions[next_marker].name.c_str());
        Expected<std::unique_ptr<mca::Instruction>> built = ib.createInstruction(mi);
        if (!built) {
            consumeError(built.takeError());
            std::printf("x %u\n", line);
            continue;
        }
        const mca::Instruction &in = **built;
        const MCInstrDesc &d = mii->get(mi.getOpcode());
        std::printf("i %u %s %u %s", line, mii->getName(mi.getOpcode()).str().c_str(), in.getLatency(),
                    d.mayLoad() ? "L" : "-");
        for (const mca::WriteState &w : in.getDefs())
            if (w.getRegisterID()) print_units(*mri, w.getRegisterID(), 'w', (int)w.getLatency());
        for (const mca::ReadState &r : in.getUses())
            if (r.getRegisterID() && !r.isIndependentFromDef())
                print_units(*mri, r.getRegisterID(), 'r',
                            read_advance(*sti, r.getSchedClass(), r.getDescriptor().UseIndex));
        std::printf("\n");
    }
    for (; next_marker < regions.size(); next_marker++)
        if (regions[next_marker].begin) std::printf("region %s\n", regions[next_marker].name.c_str());
    return std::fflush(stdout) == 0 ? 0 : 1;
}
