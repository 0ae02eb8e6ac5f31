/* Fully symmetric quadrature rules on the tetrahedron, positive with all points inside, of degrees
 * 1 to 14: published orbit parameters refined on the moment equations and expanded into points. */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "host.h"
#include "refel_tet.h"

/* Orbit classes of the permutations of the barycentric coordinates (l0, l1, l2, l3), named by the
 * multiplicities of their distinct values, with their generators:
 *   S4     (1/4, 1/4, 1/4, 1/4)        1 point,  no parameter
 *   S31    (a, a, a, 1 - 3a)           4 points, a
 *   S22    (a, a, 1/2 - a, 1/2 - a)    6 points, a
 *   S211   (a, a, b, 1 - 2a - b)      12 points, a, b
 *   S1111  (a, b, c, 1 - a - b - c)   24 points, a, b, c */
enum tet_orbit_class { S4, S31, S22, S211, S1111 };

static const int orbit_nparam[5] = {0, 1, 1, 2, 3};
/* Which of the generator's distinct values each barycentric coordinate takes. */
static const int orbit_pattern[5][4] = {
  {0, 0, 0, 0}, {0, 0, 0, 1}, {0, 0, 1, 1}, {0, 0, 1, 2}, {0, 1, 2, 3}};

/* An orbit: its class, the weight of each of its points (the weights of a rule sum to 1) and its
 * parameters (a, b, c). */
struct tet_orbit {
  enum tet_orbit_class cls;
  double w, p[3];
};

struct tet_rule {
  int degree, npts, norbit;
  const struct tet_orbit *orbit;
};

/* The tables are those of the PHG library's quad.c (revision 1.275, 2022, rules QUAD_3D_P1 to
 * QUAD_3D_P14), whose authors published the method and the first set in L. Zhang, T. Cui and
 * H. Liu, "A set of symmetric quadrature rules on triangles and tetrahedra", J. Comput. Math.
 * 27(1), 2009, 89-96 (its degree-8 rule is the one here); PHG's rules of degrees 9 to 14 came
 * later (its degree-14 rule has 194 points where the paper's has 236). PHG's degree-4 rule is its
 * 14-point degree-5 rule: a degree-4 request gets that one here. Parameters printed with trailing
 * zeros were fixed where the moment equations leave a family of solutions. */
static const struct tet_orbit tet_p1[] = {{S4, 1, {0}}};

static const struct tet_orbit tet_p2[] = {{S31, 0.25, {0.13819660112501051517954131656343619}}};

static const struct tet_orbit tet_p3[] = {
  {S31, 0.13852796651186214232361769837564129, {0.32805469671142664733580581998119743}},
  {S31, 0.11147203348813785767638230162435871, {0.10695227393293068277170204157061650}}};

static const struct tet_orbit tet_p5[] = {
  {S31, 0.11268792571801585079918565233328633, {0.31088591926330060979734573376345783}},
  {S31, 0.07349304311636194954371020548632750, {0.09273525031089122640232391373703061}},
  {S22, 0.04254602077708146643806942812025744, {0.04550370412564964949188052627933943}}};

static const struct tet_orbit tet_p6[] = {
  {S31, 0.03992275025816749209969062755747998, {0.21460287125915202928883921938628499}},
  {S31, 0.01007721105532064294801323744593686, {0.04067395853461135311557944895641006}},
  {S31, 0.05535718154365472209515327785372602, {0.32233789014227551034399447076249213}},
  /* (3 - sqrt(5)) / 12, (5 + sqrt(5)) / 12 */
  {S211, 27.0 / 560,
   {0.06366100187501752529923552760572698, 0.60300566479164914136743113906093969}}};

static const struct tet_orbit tet_p7[] = {
  {S4, 0.09548528946413084886057843611722638, {0}},
  {S31, 0.04232958120996702907628617079854674, {0.31570114977820279942342999959331149}},
  {S22, 0.03189692783285757993427482408294246, {0.05048982259839636876305382298656247}},
  {S211, 0.03720713072833462136961556119148112,
   {0.18883383102600104773643110385458576, 0.57517163758700002348324157702230752}},
  {S211, 0.00811077082990334156610343349109654,
   {0.02126547254148324598883610149981994, 0.81083024109854856111810537984823239}}};

static const struct tet_orbit tet_p8[] = {
  {S31, 0.00639714777990232132145142033517302, {0.03967542307038990126507132953938949}},
  {S31, 0.04019044802096617248816115847981783, {0.31448780069809631378416056269714830}},
  {S31, 0.02430797550477032117486910877192260, {0.10198669306270330000000000000000000}},
  {S31, 0.05485889241369744046692412399039144, {0.18420369694919151227594641734890918}},
  {S22, 0.03571961223409918246495096899661762, {0.06343628775453989240514123870189827}},
  {S211, 0.00718319069785253940945110521980376,
   {0.02169016206772800480266248262493018, 0.71993192203946593588943495335273478}},
  {S211, 0.01637218194531911754093813975611913,
   {0.20448008063679571424133557487274534, 0.58057719012880922417539817139062041}}};

static const struct tet_orbit tet_p9[] = {
  {S4, 0.05489853459364812686895885032391298, {0}},
  {S31, 0.00421825735654367356185795185819147, {0.03785502061999503609086515586175707}},
  {S31, 0.02348412311384798927791501022996111, {0.16954439965012220000000000000000000}},
  {S31, 0.00421283454980389148648831814037819, {0.05484140424416689000000000000000000}},
  {S31, 0.02994712640542812769203037546126163, {0.32229717190921058836777748445908171}},
  {S22, 0.03695441750679136335292416138761121, {0.10961777508972033704050355954365052}},
  {S211, 0.00817349224171051348425319650294732,
   {0.45915766038590539763886410168178216, 0.08004485927247373376034330857923567}},
  {S211, 0.00987978656102278957913113314297149,
   {0.03296694775357210169727386483414899, 0.71879584022434055051132299796383374}},
  {S211, 0.02160718741919244401497646690335203,
   {0.18174359672117481549870278661377760, 0.60023700739524674102301240348069459}}};

static const struct tet_orbit tet_p10[] = {
  {S4, 0.04574189830483037077884770618329337, {0}},
  {S31, 0.01092727610912416907498417206565671, {0.11425191803006935688146412277598412}},
  {S31, 0.00055352334192264689534558564012282, {0.01063790234539248531264164411274776}},
  {S31, 0.02569337913913269580782688316792080, {0.31274070833535645859816704980806110}},
  {S22, 0.00055387649657283109312967562590035, {0.01631296303281644000000000000000000}},
  {S211, 0.01044842402938294329072628200105773,
   {0.03430622963180452385835196582344460, 0.59830121060139461905983787517050400}},
  {S211, 0.02513844602651287118280517785487423,
   {0.12346418534551115945916818783743644, 0.47120066204746310257913700590727081}},
  {S211, 0.01178620679249594711782155323755017,
   {0.40991962933181117418479812480531207, 0.16546413290740130923509687990363569}},
  {S211, 0.01332022473886650471019828463616468,
   {0.17397243903011716743177479785668929, 0.62916375300275643773181882027844514}},
  {S211, 0.00615987577565961666092767531756180,
   {0.03002157005631784150255786784038011, 0.81213056814351208262160080755918730}}};

static const struct tet_orbit tet_p11[] = {
  {S31, 0.01612698613577620369120244222737879, {0.12460560449278830000000000000000000}},
  {S31, 0.00178872341812357138976990346996962, {0.02609630765687464746851542316261877}},
  {S31, 0.00847529348343123401863799968389086, {0.07193883255798884087330011042809557}},
  {S31, 0.01238021263944669050859562763135516, {0.32611122454203676937273102302894204}},
  {S31, 0.02205586697199415746140963638568037, {0.29405882789858127213310307732130217}},
  {S31, 0.02295765467664274421265594265203307, {0.19271399104965490000000000000000000}},
  {S22, 0.00120553827014535727045055662252294, {0.00047127204692773946587837159205225}},
  {S22, 0.02479381575164443454447803302296997, {0.10321360207480949336085123341390539}},
  {S211, 0.01203878836480353606935457416590660,
   {0.04349989920159741251267172033621503, 0.63045319723555591476353398203997141}},
  {S211, 0.00189370204498242146248858917618493,
   {0.01414839289422299290755441603794058, 0.82491678632147090000000000000000000}},
  {S211, 0.01838752922255814184581020943433469,
   {0.21646077368258425486341884576246642, 0.52711130286496480000000000000000000}},
  {S211, 0.00375249249801662461193260176157591,
   {0.13301884366834711587538262083530116, 0.73318551371398651551736762818473584}},
  {S211, 0.00633289841693951300885921328914879,
   {0.44054756810613723082959230959880706, 0.11506799584377921703650823955291194}}};

static const struct tet_orbit tet_p12[] = {
  {S4, 0.02340581914868067999082580773836836, {0}},
  {S31, 0.00484469946470415656870798306091558, {0.19318721110347230000000000000000000}},
  {S31, 0.00079865303812732982185563521014343, {0.01811701371436566878506928822499717}},
  {S31, 0.01311872008808756207964488505025527, {0.10700751831426066518406159227423033}},
  {S31, 0.02352182961292765917274505054313770, {0.29936173715970702940603127680004538}},
  {S31, 0.00210860882494149803857437048649497, {0.33333033333333333042835213613025030}},
  {S31, 0.00047839298963616600187228601742259, {0.16575369007421640000000000000000000}},
  {S22, 0.00204546234216855322941711800170502, {0.04009986052352575650366980228640728}},
  {S211, 0.00334576331671817115245418532677178,
   {0.01951844463761131301132122485607343, 0.59982639757597731668263005976738196}},
  {S211, 0.01181044822479275264785338274950585,
   {0.24970741896308715787490891769354198, 0.47400425629911050000000000000000000}},
  {S211, 0.00290156990282342152841364375092118,
   {0.07674205857869954726322831328843659, 0.83056291375422969598432041821082569}},
  {S211, 0.00949250645501753676094846901252898,
   {0.43011409627915217536723647418133112, 0.02265922072588833582931396831630072}},
  {S211, 0.02094018358085748583183796760479700,
   {0.12197854304894211937147375564906792, 0.47765370899783134571567376444973682}},
  {S211, 0.00171435866337409051521874943702732,
   {0.01480482319031682427540691439704854, 0.81083799468092699988474915243749073}},
  {S1111, 0.00759915954173370886076474450830409,
   {0.65250697573013212016385330106711095, 0.22646235632397177636617160407210034,
    0.02251830769546778956654013747639605}}};

static const struct tet_orbit tet_p13[] = {
  {S4, 0.02191579945212728678229670892998658, {0}},
  {S31, 0.00809592740005652573580359966615063, {0.09935339765028269917868020572165369}},
  {S31, 0.00130319185047278813746994806952476, {0.02361873260499568532036302265004401}},
  {S31, 0.01996610676014222116016391561580003, {0.30089166537572662790706731844610997}},
  {S31, 0.02125705756007566772097136088386650, {0.18156624280757148139366685840064601}},
  {S22, 0.00077331890737182713690269661719116, {0.00428160639152879988718710754508354}},
  {S22, 0.01755491389570430512641028370006205, {0.12290357421888442998582785890620434}},
  {S211, 0.00213830361001659899343287397434178,
   {0.28318219770202728236417353077594322, 0.43037955664247500440987356786807501}},
  {S211, 0.00256560169283338620814651902766716,
   {0.02239485904524970717572425710098278, 0.83488749018470024820940398932904512}},
  {S211, 0.00338953948455728203040932651810398,
   {0.02191788402113435132324662419880111, 0.67691762094326571059673391273529166}},
  {S211, 0.01135828330503278417235563981454793,
   {0.21481417044274656673534260788169227, 0.52280311286258745560867693994038579}},
  {S211, 0.01103203882197761043040360052454856,
   {0.08000490008644308882018405418010744, 0.24689045570275147370034631014113188}},
  {S211, 0.00457602573785952356043458354199517,
   {0.11579466150271899371721034492503850, 0.74997281767443310000000000000000000}},
  {S211, 0.00827343104220868129752243222682095,
   {0.39129315347000474438672195978809687, 0.18835457382799180000000000000000000}},
  {S211, 0.00586641165391940007076312979369247,
   {0.45315745821242834581317282468854978, 0.02202033169457796534173826092007299}},
  {S1111, 0.00313458521939849614410720196518793,
   {0.27324999892429634023602493512400674, 0.60775441245653315696274741541102470,
    0.00561877924700169073874366184065955}}};

static const struct tet_orbit tet_p14[] = {
  {S31, 0.00898427322254918127543126682598773, {0.12703434587701869604797950660749487}},
  {S31, 0.00235414897468188299910869230818368, {0.03716308713428675181759859706979325}},
  {S31, 0.00733553866836377016223467789336265, {0.30931161817607732544635505822019770}},
  {S31, 0.00360629336228634011530354432318077, {0.07778813507287403019691221965639750}},
  {S31, 0.00022796656022189240650071390651338, {0.01187611663683786502091234677477106}},
  {S22, 0.00425068731230945391542573203967906, {0.02371189715571358237825633505545476}},
  {S211, 0.00502229674184657212637707578731437,
   {0.04551422172971295738029708158398140, 0.73884882267833978290969755547076243}},
  {S211, 0.00664105199619194276141547967835717,
   {0.19457055431059420000000000000000000, 0.36138202354403612356128050094846106}},
  {S211, 0.00648663075652078221084713724389357,
   {0.42158193164647035846631052119479790, 0.13481021809330111977392354242291205}},
  {S211, 0.01084924609520658118048627917429636,
   {0.36227661803202431683389679069549247, 0.09100846759454444774082592541447308}},
  {S211, 0.00698225572400728567899793615355807,
   {0.26662003783461096351186917353420086, 0.45135951603290056428206454329600320}},
  {S211, 0.01057643198113441258335538488635301,
   {0.07870367664603755989163074150395650, 0.53854007868617855365162509332690316}},
  {S211, 0.00172517387494940531214061228255136,
   {0.01462604843949452202375023818416595, 0.68140642280720592407050422036244765}},
  {S211, 0.01064026039260234415487304925754523,
   {0.20755902173331721318141636044536441, 0.49641284136813420000000000000000000}},
  {S211, 0.00031627239419231128593612508289817,
   {0.00317672566580133046838579859910808, 0.88571644680187933415518991697343211}},
  {S211, 0.00676212093730203740266276007684025,
   {0.16634658949265576428233847556684871, 0.64221464654291632524678940601354742}},
  {S1111, 0.00293371746826111669254642316791922,
   {0.59698804897542365623933181080626979, 0.30344194369885264264500117734906354,
    0.00772105989990930297678960227638472}},
  {S1111, 0.00091803679200083798695474146748587,
   {0.81379652801439184798325669233364806, 0.06021328978843793059084645285790579,
    0.12582571438467239382589793638340901}}};

#define RULE(d, n, t) {d, n, (int)(sizeof t / sizeof t[0]), t}
#define TET_NRULE 13
static const struct tet_rule tet_rules[TET_NRULE] = {
  RULE(1, 1, tet_p1),    RULE(2, 4, tet_p2),     RULE(3, 8, tet_p3),     RULE(5, 14, tet_p5),
  RULE(6, 24, tet_p6),   RULE(7, 35, tet_p7),    RULE(8, 46, tet_p8),    RULE(9, 59, tet_p9),
  RULE(10, 79, tet_p10), RULE(11, 96, tet_p11), RULE(12, 127, tet_p12), RULE(13, 149, tet_p13),
  RULE(14, 194, tet_p14)};
#undef RULE

#define TET_SYM_MAX_DEGREE 14
#define TET_MAX_POINTS 194
/* 1 + 4 + 8 + 14 + 24 + 35 + 46 + 59 + 79 + 96 + 127 + 149 + 194 points. */
#define TET_TOTAL 836
static int tet_offset[TET_NRULE + 1];
static double tet_xyz[3 * TET_TOTAL];
static double tet_w[TET_TOTAL];
static double tet_moment_error[TET_NRULE];
static int tet_status[TET_NRULE]; /* 0 when the refined rule passed its checks */
static pthread_once_t tet_once = PTHREAD_ONCE_INIT;

/* A point of an orbit: the unknowns of its weight and first parameter, and its coordinates
 * x = (l1, l2, l3) with their derivatives dx[j][d] with respect to the orbit's parameter j. */
struct tet_point {
  int col_w, col_p, np;
  double x[3], dx[3][3];
};

/* Expand the orbits of rule t with unknowns u (per orbit: its weight, then its parameters) into
 * points; returns the number of points. The points of an orbit are the distinct permutations of
 * its generator, in the lexicographic order of the permutations that first produce them. */
static int tet_expand(const struct tet_rule *t, const double *u, struct tet_point *pt)
{
  int np = 0, col = 0;
  for (int o = 0; o < t->norbit; o++) {
    const enum tet_orbit_class c = t->orbit[o].cls;
    const int npar = orbit_nparam[c], *pat = orbit_pattern[c], first = np;
    const double *p = u + col + 1;
    /* The generator's distinct values v[k] and their derivatives dv[k][j]. */
    double v[4] = {0}, dv[4][3] = {{0}};
    switch (c) {
    case S4:
      v[0] = 0.25;
      break;
    case S31:
      v[0] = p[0], v[1] = 1 - 3 * p[0];
      dv[0][0] = 1, dv[1][0] = -3;
      break;
    case S22:
      v[0] = p[0], v[1] = 0.5 - p[0];
      dv[0][0] = 1, dv[1][0] = -1;
      break;
    case S211:
      v[0] = p[0], v[1] = p[1], v[2] = 1 - 2 * p[0] - p[1];
      dv[0][0] = 1, dv[1][1] = 1, dv[2][0] = -2, dv[2][1] = -1;
      break;
    case S1111:
      v[0] = p[0], v[1] = p[1], v[2] = p[2], v[3] = 1 - p[0] - p[1] - p[2];
      dv[0][0] = dv[1][1] = dv[2][2] = 1, dv[3][0] = dv[3][1] = dv[3][2] = -1;
      break;
    }
    /* label[q][k]: which value coordinate k of the orbit's point q takes. */
    int label[24][4];
    for (int perm = 0; perm < 256; perm++) {
      /* The permutations (i0, i1, i2, i3) of (0, 1, 2, 3), perm = i0 i1 i2 i3 in base 4. */
      const int idx[4] = {perm >> 6, perm >> 4 & 3, perm >> 2 & 3, perm & 3};
      if ((1 << idx[0] | 1 << idx[1] | 1 << idx[2] | 1 << idx[3]) != 15) continue;
      int lab[4], dup = 0;
      for (int k = 0; k < 4; k++) lab[k] = pat[idx[k]];
      for (int q = 0; q < np - first && !dup; q++) dup = !memcmp(label[q], lab, sizeof lab);
      if (dup) continue;
      memcpy(label[np - first], lab, sizeof lab);
      struct tet_point *P = &pt[np++];
      P->col_w = col;
      P->col_p = col + 1;
      P->np = npar;
      for (int d = 0; d < 3; d++) {
        P->x[d] = v[lab[d + 1]];
        for (int j = 0; j < 3; j++) P->dx[j][d] = dv[lab[d + 1]][j];
      }
    }
    col += 1 + npar;
  }
  return np;
}

/* Exact integral of x^i y^j z^k over the reference tetrahedron: i! j! k! / (i + j + k + 3)!. */
static double tet_exact(int i, int j, int k)
{
  double r = 1;
  int n = 0;
  const int e[3] = {i, j, k};
  for (int d = 0; d < 3; d++)
    for (int m = 1; m <= e[d]; m++) r *= (double)m / ++n;
  return r / ((n + 1.0) * (n + 2.0) * (n + 3.0));
}

/* The moments x^i y^j z^k with i >= j >= k and i + j + k <= degree: a symmetric rule treats
 * x, y and z alike, so these equations are all of them. */
static int tet_nmoment(int degree)
{
  int m = 0;
  for (int i = 0; i <= degree; i++)
    for (int j = 0; j <= i && i + j <= degree; j++)
      for (int k = 0; k <= j && i + j + k <= degree; k++) m++;
  return m;
}

/* Relative moment residuals and their Jacobian (quad_residual_fn); the sums in long double. */
static int tet_residual(const void *rule, const double *u, int nu, double *r, double *J)
{
  const struct tet_rule *t = rule;
  struct tet_point pt[TET_MAX_POINTS];
  const int np = tet_expand(t, u, pt), deg = t->degree;
  double pw[TET_MAX_POINTS][3][TET_SYM_MAX_DEGREE + 1];
  for (int q = 0; q < np; q++)
    for (int d = 0; d < 3; d++) {
      pw[q][d][0] = 1;
      for (int e = 1; e <= deg; e++) pw[q][d][e] = pw[q][d][e - 1] * pt[q].x[d];
    }
  int m = 0;
  for (int i = 0; i <= deg; i++)
    for (int j = 0; j <= i && i + j <= deg; j++)
      for (int k = 0; k <= j && i + j + k <= deg; k++, m++) {
        const int e[3] = {i, j, k};
        const double exact = tet_exact(i, j, k);
        long double s = 0;
        double *row = J ? J + (size_t)m * nu : NULL;
        if (row) memset(row, 0, sizeof(double) * nu);
        for (int q = 0; q < np; q++) {
          const double w = u[pt[q].col_w];
          const double mono = pw[q][0][i] * pw[q][1][j] * pw[q][2][k];
          s += (long double)w * mono;
          if (!row) continue;
          row[pt[q].col_w] += mono / exact;
          for (int d = 0; d < 3; d++) {
            if (!e[d]) continue;
            /* d mono / d x_d */
            double g = e[d] * pw[q][d][e[d] - 1];
            for (int o = 0; o < 3; o++)
              if (o != d) g *= pw[q][o][e[o]];
            for (int p = 0; p < pt[q].np; p++)
              row[pt[q].col_p + p] += w * g * pt[q].dx[p][d] / exact;
          }
        }
        r[m] = (double)((s - exact) / exact);
      }
  return m;
}

/* Refine rule t, expand it into xyz and w, and check it; returns 0 when every monomial of degree
 * <= t->degree is exact to 1e-14 with all points strictly inside and all weights positive. */
static int tet_refine(const struct tet_rule *t, double *xyz, double *w, double *moment_error)
{
  double u[QUAD_MAX_UNKNOWN];
  int nu = 0;
  for (int o = 0; o < t->norbit; o++) {
    /* The published weights sum to 1; the reference tetrahedron has volume 1/6. */
    u[nu++] = t->orbit[o].w / 6;
    for (int j = 0; j < orbit_nparam[t->orbit[o].cls]; j++) u[nu++] = t->orbit[o].p[j];
  }
  *moment_error = INFINITY;
  if (quad_refine_orbits(nu, tet_nmoment(t->degree), tet_residual, t, u) < 0) return -1;

  struct tet_point pt[TET_MAX_POINTS];
  int np = tet_expand(t, u, pt), ok = np == t->npts;
  for (int q = 0; q < np; q++) {
    const double *x = pt[q].x;
    memcpy(xyz + 3 * q, x, sizeof(double) * 3);
    w[q] = u[pt[q].col_w];
    ok = ok && w[q] > 0 && x[0] > 0 && x[1] > 0 && x[2] > 0 && 1 - x[0] - x[1] - x[2] > 0;
  }
  /* Check the expanded rule on every monomial, summed in double as its users sum it. */
  double err = 0;
  for (int i = 0; i <= t->degree; i++)
    for (int j = 0; i + j <= t->degree; j++)
      for (int k = 0; i + j + k <= t->degree; k++) {
        double sum = 0;
        for (int q = 0; q < np; q++)
          sum += w[q] * pow(xyz[3 * q], i) * pow(xyz[3 * q + 1], j) * pow(xyz[3 * q + 2], k);
        err = fmax(err, fabs(sum - tet_exact(i, j, k)) / tet_exact(i, j, k));
      }
  *moment_error = err;
  return ok && err < 1e-14 ? 0 : -1;
}

static void tet_init(void)
{
  tet_offset[0] = 0;
  for (int r = 0; r < TET_NRULE; r++) {
    const int off = tet_offset[r];
    tet_offset[r + 1] = off + tet_rules[r].npts;
    tet_status[r] =
      tet_refine(&tet_rules[r], tet_xyz + 3 * off, tet_w + off, &tet_moment_error[r]);
  }
}

int quad_tet_symmetric(int degree, int *npts, const double **xyz, const double **w,
                       int *rule_degree)
{
  FEMINT_CHECK(degree <= TET_SYM_MAX_DEGREE, NULL, FEMINT_EORDER,
               "symmetric tetrahedral rule of degree %d requested (at most %d supported)",
               degree, TET_SYM_MAX_DEGREE);
  pthread_once(&tet_once, tet_init);
  int r = 0;
  while (tet_rules[r].degree < degree) r++;
  FEMINT_CHECK(tet_status[r] == 0, NULL, FEMINT_EORDER,
               "symmetric tetrahedral rule of degree %d failed its check after refinement "
               "(moment error %g)",
               tet_rules[r].degree, tet_moment_error[r]);
  *npts = tet_rules[r].npts;
  *xyz = tet_xyz + 3 * tet_offset[r];
  *w = tet_w + tet_offset[r];
  if (rule_degree) *rule_degree = tet_rules[r].degree;
  return 0;
}
