"""The works a report can cite: one BibTeX entry per key, and the references list of ``methods.md``.

:data:`BIBLIOGRAPHY` is the table; :func:`bibtex` writes ``references.bib`` for exactly the keys a
methods paragraph cites (:func:`evalcore.report.methods.methods_paragraph` returns them), and
:func:`reference_list` the same works as a Markdown list.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from ..errors import ParameterError

__all__ = ["BibEntry", "BIBLIOGRAPHY", "bibtex", "reference_list", "cite_text"]


@dataclass(frozen=True)
class BibEntry:
    """One work: its BibTeX type and fields, an author-year label and a formatted reference."""

    key: str
    kind: str
    fields: tuple[tuple[str, str], ...]
    label: str            # "Evert 2004": how the text names it
    reference: str        # one formatted line for a Markdown references list

    def field(self, name: str) -> str | None:
        """A BibTeX field's value, or None."""
        return dict(self.fields).get(name)

    @property
    def doi(self) -> str | None:
        return self.field("doi")

    @property
    def link(self) -> str | None:
        """Where the work is found: its DOI as a https://doi.org/ address (characters other than letters, digits
        and ``/.:-_`` percent-encoded), else its stable URL (ACL Anthology, JSTOR, the publisher), else None."""
        if self.doi:
            return "https://doi.org/" + quote(self.doi, safe="/.:-_")
        return self.field("url")

    def bibtex(self) -> str:
        width = max(len(name) for name, _ in self.fields)
        body = ",\n".join(f"  {name:<{width}} = {{{value}}}" for name, value in self.fields)
        return f"@{self.kind}{{{self.key},\n{body}\n}}\n"


def _entry(key: str, kind: str, label: str, reference: str, **fields: str) -> BibEntry:
    return BibEntry(key, kind, tuple(fields.items()), label, reference)


BIBLIOGRAPHY: dict[str, BibEntry] = {e.key: e for e in (
    _entry("evert2004", "inproceedings", "Evert 2004",
           "Evert, S. (2004). Significance tests for the evaluation of ranking methods. In *Proceedings of the 20th "
           "International Conference on Computational Linguistics (COLING 2004)*, pages 945–951, Geneva, Switzerland.",
           author="Evert, Stefan", title="Significance Tests for the Evaluation of Ranking Methods",
           booktitle="Proceedings of the 20th International Conference on Computational Linguistics (COLING 2004)",
           pages="945--951", address="Geneva, Switzerland", year="2004",
           url="https://aclanthology.org/C04-1136"),
    _entry("evert2005", "article", "Evert & Krenn 2005",
           "Evert, S. and Krenn, B. (2005). Using small random samples for the manual evaluation of statistical "
           "association measures. *Computer Speech & Language* 19(4), 450–466.",
           author="Evert, Stefan and Krenn, Brigitte",
           title="Using Small Random Samples for the Manual Evaluation of Statistical Association Measures",
           journal="Computer Speech \\& Language", volume="19", number="4", pages="450--466", year="2005",
           url="https://www.sciencedirect.com/science/article/pii/S0885230805000082"),
    _entry("fisher1922", "article", "Fisher 1922",
           "Fisher, R. A. (1922). On the interpretation of χ² from contingency tables, and the calculation of P. "
           "*Journal of the Royal Statistical Society* 85(1), 87–94.",
           author="Fisher, Ronald A.",
           title="On the Interpretation of $\\chi^2$ from Contingency Tables, and the Calculation of {P}",
           journal="Journal of the Royal Statistical Society", volume="85", number="1", pages="87--94",
           year="1922",
           doi="10.2307/2340521"),
    _entry("clopper1934", "article", "Clopper & Pearson 1934",
           "Clopper, C. J. and Pearson, E. S. (1934). The use of confidence or fiducial limits illustrated in the "
           "case of the binomial. *Biometrika* 26(4), 404–413.",
           author="Clopper, C. J. and Pearson, E. S.",
           title="The Use of Confidence or Fiducial Limits Illustrated in the Case of the Binomial",
           journal="Biometrika", volume="26", number="4", pages="404--413", year="1934",
           doi="10.1093/biomet/26.4.404"),
    _entry("wilson1927", "article", "Wilson 1927",
           "Wilson, E. B. (1927). Probable inference, the law of succession, and statistical inference. *Journal "
           "of the American Statistical Association* 22(158), 209–212.",
           author="Wilson, Edwin B.",
           title="Probable Inference, the Law of Succession, and Statistical Inference",
           journal="Journal of the American Statistical Association", volume="22", number="158",
           pages="209--212", year="1927",
           doi="10.1080/01621459.1927.10502953"),
    _entry("newcombe1998a", "article", "Newcombe 1998a",
           "Newcombe, R. G. (1998). Two-sided confidence intervals for the single proportion: comparison of seven "
           "methods. *Statistics in Medicine* 17(8), 857–872.",
           author="Newcombe, Robert G.",
           title="Two-Sided Confidence Intervals for the Single Proportion: Comparison of Seven Methods",
           journal="Statistics in Medicine", volume="17", number="8", pages="857--872", year="1998",
           doi="10.1002/(SICI)1097-0258(19980430)17:8<857::AID-SIM777>3.0.CO;2-E"),
    _entry("newcombe1998b", "article", "Newcombe 1998b",
           "Newcombe, R. G. (1998). Interval estimation for the difference between independent proportions: "
           "comparison of eleven methods. *Statistics in Medicine* 17(8), 873–890.",
           author="Newcombe, Robert G.",
           title="Interval Estimation for the Difference Between Independent Proportions: Comparison of Eleven "
                 "Methods",
           journal="Statistics in Medicine", volume="17", number="8", pages="873--890", year="1998",
           doi="10.1002/(SICI)1097-0258(19980430)17:8<873::AID-SIM779>3.0.CO;2-I"),
    _entry("agresti2000", "article", "Agresti & Caffo 2000",
           "Agresti, A. and Caffo, B. (2000). Simple and effective confidence intervals for proportions and "
           "differences of proportions result from adding two successes and two failures. *The American "
           "Statistician* 54(4), 280–288.",
           author="Agresti, Alan and Caffo, Brian",
           title="Simple and Effective Confidence Intervals for Proportions and Differences of Proportions Result "
                 "from Adding Two Successes and Two Failures",
           journal="The American Statistician", volume="54", number="4", pages="280--288", year="2000",
           doi="10.1080/00031305.2000.10474560"),
    _entry("agresti1998", "article", "Agresti & Coull 1998",
           "Agresti, A. and Coull, B. A. (1998). Approximate is better than \"exact\" for interval estimation of "
           "binomial proportions. *The American Statistician* 52(2), 119–126.",
           author="Agresti, Alan and Coull, Brent A.",
           title="Approximate Is Better than ``Exact'' for Interval Estimation of Binomial Proportions",
           journal="The American Statistician", volume="52", number="2", pages="119--126", year="1998",
           doi="10.1080/00031305.1998.10480550"),
    _entry("brown2001", "article", "Brown, Cai & DasGupta 2001",
           "Brown, L. D., Cai, T. T. and DasGupta, A. (2001). Interval estimation for a binomial proportion. "
           "*Statistical Science* 16(2), 101–133.",
           author="Brown, Lawrence D. and Cai, T. Tony and DasGupta, Anirban",
           title="Interval Estimation for a Binomial Proportion", journal="Statistical Science", volume="16",
           number="2", pages="101--133", year="2001",
           doi="10.1214/ss/1009213286"),
    _entry("holm1979", "article", "Holm 1979",
           "Holm, S. (1979). A simple sequentially rejective multiple test procedure. *Scandinavian Journal of "
           "Statistics* 6(2), 65–70.",
           author="Holm, Sture", title="A Simple Sequentially Rejective Multiple Test Procedure",
           journal="Scandinavian Journal of Statistics", volume="6", number="2", pages="65--70", year="1979",
           url="https://www.jstor.org/stable/4615733"),
    _entry("benjamini1995", "article", "Benjamini & Hochberg 1995",
           "Benjamini, Y. and Hochberg, Y. (1995). Controlling the false discovery rate: a practical and powerful "
           "approach to multiple testing. *Journal of the Royal Statistical Society, Series B* 57(1), 289–300.",
           author="Benjamini, Yoav and Hochberg, Yosef",
           title="Controlling the False Discovery Rate: A Practical and Powerful Approach to Multiple Testing",
           journal="Journal of the Royal Statistical Society, Series B (Methodological)", volume="57",
           number="1", pages="289--300", year="1995",
           doi="10.1111/j.2517-6161.1995.tb02031.x"),
    _entry("dietterich1998", "article", "Dietterich 1998",
           "Dietterich, T. G. (1998). Approximate statistical tests for comparing supervised classification learning "
           "algorithms. *Neural Computation* 10(7), 1895–1923.",
           author="Dietterich, Thomas G.",
           title="Approximate Statistical Tests for Comparing Supervised Classification Learning Algorithms",
           journal="Neural Computation", volume="10", number="7", pages="1895--1923", year="1998",
           doi="10.1162/089976698300017197"),
    _entry("yates1934", "article", "Yates 1934",
           "Yates, F. (1934). Contingency tables involving small numbers and the χ² test. *Supplement to the Journal "
           "of the Royal Statistical Society* 1(2), 217–235.",
           author="Yates, Frank", title=r"Contingency Tables Involving Small Numbers and the $\chi^2$ Test",
           journal="Supplement to the Journal of the Royal Statistical Society", volume="1", number="2",
           pages="217--235", year="1934",
           doi="10.2307/2983604"),
    _entry("mcnemar1947", "article", "McNemar 1947",
           "McNemar, Q. (1947). Note on the sampling error of the difference between correlated proportions or "
           "percentages. *Psychometrika* 12(2), 153–157.",
           author="McNemar, Quinn",
           title="Note on the Sampling Error of the Difference between Correlated Proportions or Percentages",
           journal="Psychometrika", volume="12", number="2", pages="153--157", year="1947",
           doi="10.1007/BF02295996"),
    _entry("pearson1900", "article", "Pearson 1900",
           "Pearson, K. (1900). On the criterion that a given system of deviations from the probable in the case "
           "of a correlated system of variables is such that it can be reasonably supposed to have arisen from "
           "random sampling. *Philosophical Magazine, Series 5* 50(302), 157–175.",
           author="Pearson, Karl",
           title="On the Criterion that a Given System of Deviations from the Probable in the Case of a Correlated "
                 "System of Variables is Such that it Can Be Reasonably Supposed to Have Arisen from Random "
                 "Sampling",
           journal="The London, Edinburgh, and Dublin Philosophical Magazine and Journal of Science, Series 5",
           volume="50", number="302", pages="157--175", year="1900",
           doi="10.1080/14786440009463897"),
    _entry("krenn2000", "book", "Krenn 2000",
           "Krenn, B. (2000). *The Usual Suspects: Data-Oriented Models for the Identification and Representation "
           "of Lexical Collocations*. Volume 7 of Saarbrücken Dissertations in Computational Linguistics and "
           "Language Technology. DFKI & Universität des Saarlandes, Saarbrücken.",
           author="Krenn, Brigitte",
           title="The Usual Suspects: Data-Oriented Models for the Identification and Representation of Lexical "
                 "Collocations",
           series="Saarbr{\\\"u}cken Dissertations in Computational Linguistics and Language Technology",
           volume="7", publisher="DFKI \\& Universit{\\\"a}t des Saarlandes", address="Saarbr{\\\"u}cken, Germany",
           year="2000"),
    _entry("yeh2000", "inproceedings", "Yeh 2000",
           "Yeh, A. (2000). More accurate tests for the statistical significance of result differences. In "
           "*Proceedings of the 18th International Conference on Computational Linguistics (COLING 2000)*, "
           "pages 947–953, Saarbrücken, Germany.",
           author="Yeh, Alexander",
           title="More Accurate Tests for the Statistical Significance of Result Differences",
           booktitle="Proceedings of the 18th International Conference on Computational Linguistics (COLING 2000)",
           pages="947--953", address="Saarbr{\\\"u}cken, Germany", year="2000",
           url="https://aclanthology.org/C00-2137"),
    _entry("bergkirkpatrick2012", "inproceedings", "Berg-Kirkpatrick et al. 2012",
           "Berg-Kirkpatrick, T., Burkett, D. and Klein, D. (2012). An empirical investigation of statistical "
           "significance in NLP. In *Proceedings of the 2012 Joint Conference on Empirical Methods in Natural "
           "Language Processing and Computational Natural Language Learning (EMNLP-CoNLL)*, pages 995–1005, "
           "Jeju Island, Korea.",
           author="Berg-Kirkpatrick, Taylor and Burkett, David and Klein, Dan",
           title="An Empirical Investigation of Statistical Significance in {NLP}",
           booktitle="Proceedings of the 2012 Joint Conference on Empirical Methods in Natural Language Processing "
                     "and Computational Natural Language Learning",
           pages="995--1005", address="Jeju Island, Korea", year="2012",
           url="https://aclanthology.org/D12-1091"),
    _entry("delong1988", "article", "DeLong et al. 1988",
           "DeLong, E. R., DeLong, D. M. and Clarke-Pearson, D. L. (1988). Comparing the areas under two or more "
           "correlated receiver operating characteristic curves: a nonparametric approach. *Biometrics* 44(3), "
           "837–845.",
           author="DeLong, Elizabeth R. and DeLong, David M. and Clarke-Pearson, Daniel L.",
           title="Comparing the Areas under Two or More Correlated Receiver Operating Characteristic Curves: "
                 "A Nonparametric Approach",
           journal="Biometrics", volume="44", number="3", pages="837--845", year="1988",
           doi="10.2307/2531595"),
    _entry("robin2011", "article", "Robin et al. 2011",
           "Robin, X., Turck, N., Hainard, A., Tiberti, N., Lisacek, F., Sanchez, J.-C. and Müller, M. (2011). "
           "pROC: an open-source package for R and S+ to analyze and compare ROC curves. *BMC Bioinformatics* 12, "
           "77.",
           author="Robin, Xavier and Turck, Natacha and Hainard, Alexandre and Tiberti, Natalia and Lisacek, "
                  "Fr{\\'e}d{\\'e}rique and Sanchez, Jean-Charles and M{\\\"u}ller, Markus",
           title="{pROC}: An Open-Source Package for {R} and {S+} to Analyze and Compare {ROC} Curves",
           journal="BMC Bioinformatics", volume="12", pages="77", year="2011", doi="10.1186/1471-2105-12-77"),
    _entry("cohen1960", "article", "Cohen 1960",
           "Cohen, J. (1960). A coefficient of agreement for nominal scales. *Educational and Psychological "
           "Measurement* 20(1), 37–46.",
           author="Cohen, Jacob", title="A Coefficient of Agreement for Nominal Scales",
           journal="Educational and Psychological Measurement", volume="20", number="1", pages="37--46",
           year="1960", doi="10.1177/001316446002000104"),
    _entry("fleiss1971", "article", "Fleiss 1971",
           "Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. *Psychological Bulletin* "
           "76(5), 378–382.",
           author="Fleiss, Joseph L.", title="Measuring Nominal Scale Agreement among Many Raters",
           journal="Psychological Bulletin", volume="76", number="5", pages="378--382", year="1971",
           doi="10.1037/h0031619"),
)}


# The works the systems comparison cites (evalcore.systems): resampling tests for MT and the metrics it computes.
BIBLIOGRAPHY.update({e.key: e for e in (
    _entry("koehn2004", "inproceedings", "Koehn 2004",
           "Koehn, P. (2004). Statistical significance tests for machine translation evaluation. In *Proceedings of "
           "the 2004 Conference on Empirical Methods in Natural Language Processing (EMNLP 2004)*, pages 388–395, "
           "Barcelona, Spain. https://aclanthology.org/W04-3250",
           author="Koehn, Philipp", title="Statistical Significance Tests for Machine Translation Evaluation",
           booktitle="Proceedings of the 2004 Conference on Empirical Methods in Natural Language Processing",
           pages="388--395", address="Barcelona, Spain", year="2004", url="https://aclanthology.org/W04-3250"),
    _entry("riezler2005", "inproceedings", "Riezler & Maxwell 2005",
           "Riezler, S. and Maxwell, J. T. (2005). On some pitfalls in automatic evaluation and significance testing "
           "for MT. In *Proceedings of the ACL Workshop on Intrinsic and Extrinsic Evaluation Measures for Machine "
           "Translation and/or Summarization*, pages 57–64, Ann Arbor, Michigan. https://aclanthology.org/W05-0908",
           author="Riezler, Stefan and Maxwell, John T.",
           title="On Some Pitfalls in Automatic Evaluation and Significance Testing for {MT}",
           booktitle="Proceedings of the {ACL} Workshop on Intrinsic and Extrinsic Evaluation Measures for Machine "
                     "Translation and/or Summarization",
           pages="57--64", address="Ann Arbor, Michigan", year="2005", url="https://aclanthology.org/W05-0908"),
    _entry("post2018", "inproceedings", "Post 2018",
           "Post, M. (2018). A call for clarity in reporting BLEU scores. In *Proceedings of the Third Conference on "
           "Machine Translation: Research Papers*, pages 186–191, Brussels, Belgium. "
           "https://doi.org/10.18653/v1/W18-6319",
           author="Post, Matt", title="A Call for Clarity in Reporting {BLEU} Scores",
           booktitle="Proceedings of the Third Conference on Machine Translation: Research Papers",
           pages="186--191", address="Brussels, Belgium", year="2018", doi="10.18653/v1/W18-6319",
           url="https://aclanthology.org/W18-6319"),
    _entry("papineni2002", "inproceedings", "Papineni et al. 2002",
           "Papineni, K., Roukos, S., Ward, T. and Zhu, W.-J. (2002). BLEU: a method for automatic evaluation of "
           "machine translation. In *Proceedings of the 40th Annual Meeting of the Association for Computational "
           "Linguistics (ACL 2002)*, pages 311–318, Philadelphia, Pennsylvania. "
           "https://doi.org/10.3115/1073083.1073135",
           author="Papineni, Kishore and Roukos, Salim and Ward, Todd and Zhu, Wei-Jing",
           title="{BLEU}: a Method for Automatic Evaluation of Machine Translation",
           booktitle="Proceedings of the 40th Annual Meeting of the Association for Computational Linguistics",
           pages="311--318", address="Philadelphia, Pennsylvania, USA", year="2002",
           doi="10.3115/1073083.1073135", url="https://aclanthology.org/P02-1040"),
    _entry("popovic2015", "inproceedings", "Popović 2015",
           "Popović, M. (2015). chrF: character n-gram F-score for automatic MT evaluation. In *Proceedings of the "
           "Tenth Workshop on Statistical Machine Translation*, pages 392–395, Lisbon, Portugal. "
           "https://doi.org/10.18653/v1/W15-3049",
           author="Popovi{\\'c}, Maja", title="{chrF}: character n-gram {F}-score for automatic {MT} evaluation",
           booktitle="Proceedings of the Tenth Workshop on Statistical Machine Translation", pages="392--395",
           address="Lisbon, Portugal", year="2015", doi="10.18653/v1/W15-3049",
           url="https://aclanthology.org/W15-3049"),
    _entry("snover2006", "inproceedings", "Snover et al. 2006",
           "Snover, M., Dorr, B., Schwartz, R., Micciulla, L. and Makhoul, J. (2006). A study of translation edit "
           "rate with targeted human annotation. In *Proceedings of the 7th Conference of the Association for "
           "Machine Translation in the Americas: Technical Papers*, pages 223–231, Cambridge, Massachusetts. "
           "https://aclanthology.org/2006.amta-papers.25",
           author="Snover, Matthew and Dorr, Bonnie and Schwartz, Rich and Micciulla, Linnea and Makhoul, John",
           title="A Study of Translation Edit Rate with Targeted Human Annotation",
           booktitle="Proceedings of the 7th Conference of the Association for Machine Translation in the Americas: "
                     "Technical Papers",
           pages="223--231", address="Cambridge, Massachusetts, USA", year="2006",
           url="https://aclanthology.org/2006.amta-papers.25"),
    _entry("och2003", "article", "Och & Ney 2003",
           "Och, F. J. and Ney, H. (2003). A systematic comparison of various statistical alignment models. "
           "*Computational Linguistics* 29(1), 19–51. https://doi.org/10.1162/089120103321337421",
           author="Och, Franz Josef and Ney, Hermann",
           title="A Systematic Comparison of Various Statistical Alignment Models",
           journal="Computational Linguistics", volume="29", number="1", pages="19--51", year="2003",
           doi="10.1162/089120103321337421", url="https://aclanthology.org/J03-1002"),
    _entry("noreen1989", "book", "Noreen 1989",
           "Noreen, E. W. (1989). *Computer-Intensive Methods for Testing Hypotheses: An Introduction*. Wiley, "
           "New York.",
           author="Noreen, Eric W.", title="Computer-Intensive Methods for Testing Hypotheses: An Introduction",
           publisher="Wiley", address="New York", year="1989"),
    _entry("lin2004", "inproceedings", "Lin 2004",
           "Lin, C.-Y. (2004). ROUGE: a package for automatic evaluation of summaries. In *Text Summarization "
           "Branches Out*, pages 74–81, Barcelona, Spain. https://aclanthology.org/W04-1013",
           author="Lin, Chin-Yew", title="{ROUGE}: A Package for Automatic Evaluation of Summaries",
           booktitle="Text Summarization Branches Out", pages="74--81", address="Barcelona, Spain", year="2004",
           url="https://aclanthology.org/W04-1013"),
    _entry("carterette2012", "article", "Carterette 2012",
           "Carterette, B. A. (2012). Multiple testing in statistical analysis of systems-based information retrieval "
           "experiments. *ACM Transactions on Information Systems* 30(1), article 4, 4:1–4:34.",
           author="Carterette, Benjamin A.",
           title="Multiple Testing in Statistical Analysis of Systems-Based Information Retrieval Experiments",
           journal="ACM Transactions on Information Systems", volume="30", number="1", pages="4:1--4:34",
           year="2012", doi="10.1145/2094072.2094076"),
    _entry("student1908", "article", "Student 1908",
           "Student (1908). The probable error of a mean. *Biometrika* 6(1), 1–25.",
           author="Student", title="The Probable Error of a Mean", journal="Biometrika", volume="6", number="1",
           pages="1--25", year="1908", doi="10.1093/biomet/6.1.1"),
    _entry("wilcoxon1945", "article", "Wilcoxon 1945",
           "Wilcoxon, F. (1945). Individual comparisons by ranking methods. *Biometrics Bulletin* 1(6), 80–83.",
           author="Wilcoxon, Frank", title="Individual Comparisons by Ranking Methods", journal="Biometrics Bulletin",
           volume="1", number="6", pages="80--83", year="1945", doi="10.2307/3001968"),
    _entry("yilmaz2006", "inproceedings", "Yilmaz & Aslam 2006",
           "Yilmaz, E. and Aslam, J. A. (2006). Estimating average precision with incomplete and imperfect judgments. "
           "In *Proceedings of the 15th ACM International Conference on Information and Knowledge Management (CIKM "
           "2006)*, pages 102–111.",
           author="Yilmaz, Emine and Aslam, Javed A.",
           title="Estimating Average Precision with Incomplete and Imperfect Judgments",
           booktitle="Proceedings of the 15th ACM International Conference on Information and Knowledge Management "
                     "(CIKM 2006)",
           pages="102--111", year="2006", doi="10.1145/1183614.1183633"),
    # stratified designs (issue 33): the interval, the test, and recall's MOVER-R. Korn & Graubard's journal gave no
    # DOIs in 1998 and its archive's address could not be checked here: no link (the volume is 24, of 1998; R's
    # survey documentation prints 23)
    # the estimator: each band's part of a list by the ratio of its sampled candidates (a domain of a stratified
    # random sample), weighted by the band's size; its variance with the finite population correction
    _entry("cochran1977", "book", "Cochran 1977",
           "Cochran, W. G. (1977). *Sampling Techniques*, 3rd edition. Wiley, New York.",
           author="Cochran, William G.", title="Sampling Techniques", edition="Third", publisher="Wiley",
           address="New York", year="1977"),
    _entry("korngraubard1998", "article", "Korn & Graubard 1998",
           "Korn, E. L. and Graubard, B. I. (1998). Confidence intervals for proportions with small expected number "
           "of positive counts estimated from survey data. *Survey Methodology* 24(2), 193–201.",
           author="Korn, Edward L. and Graubard, Barry I.",
           title="Confidence Intervals for Proportions with Small Expected Number of Positive Counts Estimated from "
                 "Survey Data",
           journal="Survey Methodology", volume="24", number="2", pages="193--201", year="1998"),
    _entry("raoscott1992", "article", "Rao & Scott 1992",
           "Rao, J. N. K. and Scott, A. J. (1992). A simple method for the analysis of clustered binary data. "
           "*Biometrics* 48(2), 577–585.",
           author="Rao, J. N. K. and Scott, A. J.", title="A Simple Method for the Analysis of Clustered Binary Data",
           journal="Biometrics", volume="48", number="2", pages="577--585", year="1992", doi="10.2307/2532311"),
    _entry("newcombe2016", "article", "Newcombe 2016",
           "Newcombe, R. G. (2016). MOVER-R confidence intervals for ratios and products of two independently "
           "estimated quantities. *Statistical Methods in Medical Research* 25(5), 1774–1778.",
           author="Newcombe, Robert G.",
           title="{MOVER-R} Confidence Intervals for Ratios and Products of Two Independently Estimated Quantities",
           journal="Statistical Methods in Medical Research", volume="25", number="5", pages="1774--1778",
           year="2016", doi="10.1177/0962280213502144"),
    # (the paper's own DOI was not verifiable here; the URL is the DOI of the SIGIR 2006 proceedings that hold it)
    _entry("aslam2006", "inproceedings", "Aslam, Pavlu & Yilmaz 2006",
           "Aslam, J. A., Pavlu, V. and Yilmaz, E. (2006). A statistical method for system evaluation using incomplete "
           "judgments. In *Proceedings of the 29th Annual International ACM SIGIR Conference on Research and "
           "Development in Information Retrieval (SIGIR 2006)*, pages 541–548.",
           author="Aslam, Javed A. and Pavlu, Virgil and Yilmaz, Emine",
           title="A Statistical Method for System Evaluation Using Incomplete Judgments",
           booktitle="Proceedings of the 29th Annual International ACM SIGIR Conference on Research and Development "
                     "in Information Retrieval (SIGIR 2006)",
           pages="541--548", year="2006", url="https://doi.org/10.1145/1148170"),
)})


def _entries(keys) -> list[BibEntry]:
    keys = list(dict.fromkeys(keys))
    unknown = [k for k in keys if k not in BIBLIOGRAPHY]
    if unknown:
        raise ParameterError(f"no bibliography entry for {', '.join(map(repr, unknown))}; the known keys are "
                             f"{', '.join(BIBLIOGRAPHY)}")
    return [BIBLIOGRAPHY[k] for k in keys]


def bibtex(keys) -> str:
    """``references.bib``: the BibTeX entries of exactly ``keys`` (each once, in the order given)."""
    return "\n".join(e.bibtex() for e in _entries(keys))


def _where(entry: BibEntry) -> str:
    """`` doi:10.…`` or the stable URL, as a Markdown link (the DOI's ``<`` and ``>`` escaped in its text)."""
    if entry.link is None:
        return ""
    text = f"doi:{entry.doi}" if entry.doi else entry.link
    shown = "".join("\\" + ch if ch in "\\`*_[]<>" else ch for ch in text)
    return f" [{shown}]({entry.link})"


def reference_list(keys) -> str:
    """The works of ``keys`` as a Markdown list, sorted by their labels (as a references section), each with its
    DOI (or stable URL) as a link."""
    entries = sorted(_entries(keys), key=lambda e: e.reference)
    return "\n".join(f"- {e.reference}{_where(e)} [{e.key}]" for e in entries) + ("\n" if entries else "")


def cite_text(keys) -> str:
    """Author-year text for citation keys: ``Fisher 1922; Evert 2004``."""
    return "; ".join(e.label for e in _entries(keys))
